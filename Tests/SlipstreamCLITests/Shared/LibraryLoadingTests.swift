import Foundation
import Testing
import TestSupport

/// Debian's libraries but libmpg123 are loaded on first use, not linked: a run loads only what
/// its stream needs (each linked library cost every run its load at start-up). Told by the
/// dynamic loader itself (`LD_DEBUG=files` names every library it opens).
@Suite(.enabled(if: AudioFixtures.directory != nil, "run with scripts/test.sh (the audio fixtures)"))
struct LibraryLoadingTests {
    static let loadedOnFirstUse = ["libcurl", "libcrypto", "libvorbis", "libopus", "libFLAC", "libfaad", "libasound", "libpulse"]

    /// The libraries of `loadedOnFirstUse` that `slipstream ARGUMENTS` loaded.
    static func loaded(_ arguments: [String]) async throws -> Set<String> {
        let run = try await ExternalProgram.output(["LD_DEBUG=files", CommandRunner.binary] + arguments)
        #expect(run.status == 0, "\(run.text.suffix(2000))")
        return Set(loadedOnFirstUse.filter { run.text.contains("file=\($0).so") })
    }

    @Test func aLocalFileLoadsOnlyItsOwnDecoder() async throws {
        #expect(try await Self.loaded(["--version"]).isEmpty)
        #expect(try await Self.loaded(["info", try AudioFixtures.path("mp3-cbr128.mp3")]).isEmpty)
        #expect(try await Self.loaded(["info", try AudioFixtures.path("flac-16-seektable.flac")]).isEmpty)
        let folder = try TestFiles.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (name, library) in [("flac-16-seektable.flac", "libFLAC"), ("aac-lc-128k.aac", "libfaad")] {
            let played = try await Self.loaded(["play", try AudioFixtures.path(name), "--output", "wav:\(folder)/out.wav", "--force", "-q"])
            #expect(played == [library], "\(name)")
        }
    }
}
