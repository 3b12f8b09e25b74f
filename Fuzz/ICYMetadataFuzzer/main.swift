import FuzzSupport

runFuzzer(seeds: icyMetadataSeeds, fuzzICYMetadata)
