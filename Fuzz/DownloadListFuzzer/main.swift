import FuzzSupport

runFuzzer(seeds: downloadListSeeds, fuzzDownloadList)
