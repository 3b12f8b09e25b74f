import FuzzSupport

runFuzzer(seeds: externalTextSeeds, fuzzExternalText)
