import FuzzSupport

runFuzzer(seeds: [], fuzzTransportStream)
