import Testing

@testable import SlipstreamDaemon

@Suite struct Aria2ValueTests {
    @Test func sizesAreAria2s() {
        #expect(Aria2Value.size("0") == 0)
        #expect(Aria2Value.size("500K") == 500 << 10)
        #expect(Aria2Value.size("10m") == 10 << 20)
        #expect(Aria2Value.size("1048576") == 1 << 20)
        for bad in ["", "K", "1G", "-1", "1.5M", " 1", "1 M", "99999999999999999999"] { #expect(Aria2Value.size(bad) == nil, "\(bad)") }
    }

    @Test func gidsAreSixteenHexDigits() {
        #expect(GID("2089b05ecca3d829")?.description == "2089b05ecca3d829")
        #expect(GID("2089B05ECCA3D829")?.description == "2089b05ecca3d829")
        #expect(GID(UInt64(1))?.description == "0000000000000001")
        for bad in ["0000000000000000", "2089b05ecca3d82", "2089b05ecca3d8290", "+089b05ecca3d829", "2089b05ecca3d82g"] {
            #expect(GID(bad) == nil, "\(bad)")
        }
        var seen: Set<GID> = []
        for _ in 0..<100 { seen.insert(GID.random { seen.contains($0) }) }
        #expect(seen.count == 100)
    }

    @Test(arguments: [
        (0, 2, [0, 1]), (3, 5, [3, 4]), (5, 1, []), (-1, 2, [4, 3]), (-1, 100, [4, 3, 2, 1, 0]), (-5, 3, [0]), (-6, 3, []),
        (1, 0, []),
    ])
    func pagingIsAria2s(_ offset: Int, _ count: Int, _ expected: [Int]) throws {
        let page = try Aria2Service.page([0, 1, 2, 3, 4], Aria2Params(values: [.number(Double(offset)), .number(Double(count))]))
        #expect(page == expected)
    }

    @Test func optionsAreReadCheckedAndWrittenBack() throws {
        let options = try Aria2Options([
            "dir": "sub", "out": "a.iso", "split": "4", "max-connection-per-server": .number(2), "min-split-size": "2M",
            "checksum": "sha-256=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            "header": ["X-A: 1", "X-B:2"], "max-download-limit": "100K", "pause": "true", "seed-time": "0",
        ])
        #expect(options.split == 4)
        #expect(options.maxConnectionPerServer == 2)
        #expect(options.minSplitSize == 2 << 20)
        #expect(options.maxDownloadLimit == 100 << 10)
        #expect(options.headers.map(\.value) == ["1", "2"])
        #expect(options.pause)
        #expect(options.pairs.first { $0.key == "checksum" }?.value.hasPrefix("sha-256=9f86") == true)
        #expect(
            try Aria2Options(pairs: options.pairs)
                == {
                    var copy = options; copy.pause = false; return copy
                }())
    }

    @Test(
        arguments: [
            ["split": "0"], ["split": "x"], ["out": "../x"], ["out": "a/b"], ["min-split-size": "1K"], ["checksum": "crc=1"],
            ["header": "no colon"], ["user-agent": "a\r\nX: y"], ["pause": "yes"], ["gid": "123"], ["dir": .number(1.5)],
        ] as [JSONValue])
    func badValuesAreRefusedNamingTheOption(_ given: JSONValue) {
        let failure = #expect(throws: RPCFailure.Kind.self) { try Aria2Options(given) }
        #expect(failure?.code == 1)
    }
}
