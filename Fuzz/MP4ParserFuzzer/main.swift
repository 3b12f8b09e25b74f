import FuzzSupport

// Seeds: ffmpeg's M4A, M4B and fragmented MP4 fixtures, which scripts/fuzz.sh adds itself.
runFuzzer(seeds: [], fuzzMP4Parser)
