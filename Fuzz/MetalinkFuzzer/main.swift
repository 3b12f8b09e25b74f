import FuzzSupport

runFuzzer(seeds: metalinkSeeds, fuzzMetalink)
