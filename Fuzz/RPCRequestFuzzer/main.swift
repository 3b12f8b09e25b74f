import FuzzSupport

runFuzzer(seeds: rpcSeeds, fuzzRPCRequest)
