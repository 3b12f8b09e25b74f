import Foundation
import Synchronization
import Testing
import TestSupport
@testable import SlipstreamDownload

@Suite(.serialized) struct PartFileTests {
    static func write(_ bytes: [UInt8], to file: PartFile) throws {
        try bytes.withUnsafeBytes { try file.write($0, at: 0) }
    }

    /// A file that appeared at the final name while the download ran is never replaced without
    /// `overwrite`: the download stays in its `.part`.
    @Test func theFinalRenameNeverReplacesAFileThatAppeared() throws {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let final = folder + "/x.bin"
        let part = try PartFile(creating: final + ".part")
        defer { part.close() }
        #expect(FileManager.default.createFile(atPath: final, contents: Data([1])))
        #expect {
            try part.rename(to: final, overwrite: false)
        } throws: { error in
            (error as? DownloadError)?.message == "\(final) already exists (the download stays in \(final).part)"
        }
        #expect(FileManager.default.contents(atPath: final) == Data([1]))
        #expect(FileManager.default.fileExists(atPath: final + ".part"))
        try part.rename(to: final, overwrite: true)
        #expect(FileManager.default.contents(atPath: final) == Data())
        #expect(!FileManager.default.fileExists(atPath: final + ".part"))
    }

    /// An unnamed file shows nowhere in its folder until it is complete, and then appears under
    /// its final name with its bytes: no `.part` ever. Both ways of linking it (by its
    /// descriptor, and through /proc where the kernel refuses that) do the same.
    @Test(arguments: [true, false])
    func anUnnamedFileAppearsOnlyUnderItsFinalName(byDescriptor: Bool) throws {
        let before = PartFile.linksByDescriptor.exchange(byDescriptor, ordering: .relaxed)
        defer { PartFile.linksByDescriptor.store(before, ordering: .relaxed) }
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = try #require(PartFile.unnamed(for: folder + "/x.bin.part"))
        defer { file.close() }
        try Self.write([1, 2, 3], to: file)
        #expect(!file.isNamed)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
        #expect(FileManager.default.contents(atPath: file.readablePath) == Data([1, 2, 3]))
        try file.rename(to: folder + "/x.bin", overwrite: false)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["x.bin"])
        #expect(FileManager.default.contents(atPath: folder + "/x.bin") == Data([1, 2, 3]))
    }

    /// A final name taken meanwhile: the unnamed download stays in its `.part` file, and only
    /// `overwrite` replaces the other file.
    @Test func anUnnamedFileWhoseNameIsTakenStaysInItsPartFile() throws {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let final = folder + "/x.bin"
        #expect(FileManager.default.createFile(atPath: final, contents: Data([9])))
        let file = try #require(PartFile.unnamed(for: final + ".part"))
        defer { file.close() }
        try Self.write([1, 2, 3], to: file)
        #expect {
            try file.rename(to: final, overwrite: false)
        } throws: { error in
            (error as? DownloadError)?.message == "\(final) already exists (the download stays in \(final).part)"
        }
        #expect(FileManager.default.contents(atPath: final) == Data([9]))
        #expect(FileManager.default.contents(atPath: final + ".part") == Data([1, 2, 3]))
        try file.rename(to: final, overwrite: true)
        #expect(FileManager.default.contents(atPath: final) == Data([1, 2, 3]))
        #expect(!FileManager.default.fileExists(atPath: final + ".part"))
    }

    /// Naming an unnamed file never takes another's `.part`, and removing one that has no name
    /// removes nothing.
    @Test func anUnnamedFileNeverTouchesAnotherPartFile() throws {
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let part = folder + "/x.bin.part"
        #expect(FileManager.default.createFile(atPath: part, contents: Data([7])))
        let file = try #require(PartFile.unnamed(for: part))
        #expect(throws: DownloadError.self) { try file.name() }
        file.close()
        file.remove()
        #expect(FileManager.default.contents(atPath: part) == Data([7]))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["x.bin.part"])
    }
}
