import Foundation
import Testing
import TestSupport

@testable import SlipstreamDownload
@testable import SlipstreamMedia

/// The part folder of an HLS download: its plan record, and what a run finds there.
@Suite struct HLSPartFolderTests {
    private static func plan(_ names: [String], playlist: String = "http://u:p@h.test/index.m3u8") -> HLSDownloadPlan {
        var plan = HLSDownloadPlan(playlistURL: playlist)
        plan.resources = names.map { .init(url: "http://h.test/" + $0, kind: .segment) }
        return plan
    }

    /// The playlist's URL, then each resource's, one a line, without passwords: what earlier
    /// versions wrote, so that their folders resume.
    @Test func theRecordListsTheURLsWithoutPasswords() {
        let record = HLSPartFolder.record(of: Self.plan(["a.ts", "b.ts"]))
        #expect(String(decoding: record, as: UTF8.self) == "http://u:***@h.test/index.m3u8\nhttp://h.test/a.ts\nhttp://h.test/b.ts\n")
    }

    @Test func anotherPlansFilesAreRemovedAndTheSamePlansKept() throws {
        let folder = HLSPartFolder(output: try TestFiles.makeTemporaryFolder() + "/out.ts")
        #expect(try folder.make())
        #expect(try !folder.make())
        let plan = Self.plan(["a.ts", "b.ts"])
        #expect(!folder.prepare(for: plan, resuming: true))
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: folder.file(1)))
        #expect(!folder.prepare(for: plan, resuming: true))
        #expect(folder.fetched(of: plan) == [1: 3])
        // Without resuming, the same plan starts over too (but it is not another playlist's).
        #expect(!folder.prepare(for: plan, resuming: false))
        #expect(folder.fetched(of: plan).isEmpty)
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: folder.file(0)))
        #expect(folder.prepare(for: Self.plan(["a.ts", "c.ts"]), resuming: true))
        #expect(folder.fetched(of: plan).isEmpty)
        folder.remove()
        #expect(!FileManager.default.fileExists(atPath: folder.path))
    }
}
