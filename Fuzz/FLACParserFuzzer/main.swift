import FuzzSupport

// Seeds: the heads of the FLAC fixtures, which scripts/fuzz.sh adds itself.
runFuzzer(seeds: [], fuzzFLAC)
