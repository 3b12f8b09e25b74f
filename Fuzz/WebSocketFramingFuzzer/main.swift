import FuzzSupport

runFuzzer(seeds: webSocketFramingSeeds, fuzzWebSocketFraming)
