import FuzzSupport

runFuzzer(seeds: playlistSeeds, fuzzPlaylist)
