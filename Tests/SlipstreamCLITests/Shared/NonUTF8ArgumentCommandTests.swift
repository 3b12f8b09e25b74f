import Foundation
import Testing
import TestSupport

/// A file name that is not UTF-8 reached the commands changed (each bad byte a U+FFFD): `play`
/// and `info` said "No such file", and `get -o` wrote to another name. It is refused, naming it.
@Suite struct NonUTF8ArgumentCommandTests {
    @Test(arguments: [["info", "NAME"], ["play", "NAME", "--output", "null"], ["get", "http://127.0.0.1:1/x", "-o", "NAME"]])
    func aNameInAnotherEncodingIsRefusedAndNothingIsWritten(words: [String]) async throws {
        let folder = try TestFiles.makeTemporaryFolder()
        // The name in UTF-8 is there (so a name changed into another would find a file); the
        // one given has Latin-1's é (the byte 0xE9), as a file from an older system has it.
        try Data([0xFF, 0xFB, 0x90, 0x00]).write(to: URL(fileURLWithPath: folder + "/caf\u{E9}.mp3"))
        let quoted = words.map { $0 == "NAME" ? "\"$(printf 'caf\\351.mp3')\"" : "'\($0)'" }.joined(separator: " ")
        let run = try await ExternalProgram.output(["/bin/sh", "-c", "cd '\(folder)' && '\(CommandRunner.binary)' \(quoted) 2>&1"])
        #expect(run.status == 2, "\(run.text)")
        #expect(run.text.contains("is not UTF-8"), "\(run.text)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).count == 1)
    }
}
