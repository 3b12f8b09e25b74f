import FuzzSupport

runFuzzer(seeds: responseHeadSeeds, fuzzResponseHead)
