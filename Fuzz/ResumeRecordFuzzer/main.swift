import FuzzSupport

runFuzzer(seeds: resumeRecordSeeds(), fuzzResumeRecord)
