import FuzzSupport

// Seeds: the heads of the audio fixtures, which scripts/fuzz.sh adds itself.
runFuzzer(seeds: [], fuzzAudioStreamParser)
