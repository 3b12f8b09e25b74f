import Testing
@testable import SlipstreamHTTP

/// FTP and SFTP answers in HTTP's terms: a 206 only where the bytes provably start where asked
/// in a file of known size.
@Suite struct FileTransferAnswerTests {
    typealias Facts = FileTransferAnswer.Facts

    func head(_ facts: Facts) -> HTTPResponseHead { FileTransferAnswer.head(facts, url: "ftp://h/f") }

    @Test func aRestartableFileOfKnownSizeIsARange() {
        let answer = head(Facts(start: 100, remaining: 900, modified: 1_764_633_600, restarts: true))
        #expect(answer.status == 206)
        #expect(answer.contentRange == ContentRange(range: 100...999, total: 1000))
        #expect(answer.contentLength == 900)
        #expect(answer.lastModified == "Tue, 02 Dec 2025 00:00:00 GMT")
        #expect(RangeAnswer(answer, start: 100, expectedTotal: 1000) == .partial(ContentRange(range: 100...999, total: 1000)))
    }

    /// A server that refuses `REST`: the whole file, from byte 0, as a 200 to a range request says.
    @Test func noRestartsIsTheWholeFile() {
        let answer = head(Facts(start: 0, remaining: 1000, modified: nil, restarts: false))
        #expect(answer.status == 200)
        #expect(answer.contentLength == 1000)
        #expect(answer.contentRange == nil)
        #expect(answer.lastModified == nil)
    }

    /// No size (no `SIZE`, a stat without one): one stream, whatever the start.
    @Test(arguments: [Int64(0), 500]) func noSizeIsOneStream(start: Int64) {
        let answer = head(Facts(start: start, remaining: nil, modified: nil, restarts: true))
        #expect(answer.status == 200)
        #expect(answer.contentLength == nil)
    }

    @Test func anEmptyFileIsA416OfTotalZero() {
        let answer = head(Facts(start: 0, remaining: 0, modified: nil, restarts: true))
        #expect(answer.status == 416)
        #expect(answer.contentRange?.total == 0)
    }

    /// A start past the end, or at it: the answer a shorter file gets.
    @Test func pastTheEndIsA416() {
        #expect(head(Facts(start: 500, remaining: nil, restarts: true, beyondEnd: true)).status == 416)
        #expect(head(Facts(start: 500, remaining: 0, restarts: true)).status == 416)
    }

    /// A conditional request (`If-Modified-Since`) of a file not modified since: a 304.
    @Test func notModifiedSinceIsA304() {
        var facts = Facts(start: 0, remaining: 1000, modified: 1_000_000, restarts: true, modifiedSince: 1_000_000)
        #expect(head(facts).status == 304)
        facts.modifiedSince = 999_999
        #expect(head(facts).status == 206)
        facts.modified = nil
        #expect(head(facts).status == 206)
    }

    @Test func restartRepliesAreFoundByTheirCode() {
        func accepted(_ line: String) -> Bool {
            Array(line.utf8).withUnsafeBytes { FileTransferAnswer.isRestartAccepted(replyLine: $0) }
        }
        #expect(accepted("350 Restarting at position 0.\r\n"))
        #expect(accepted("350-first line of several\r\n"))
        #expect(!accepted("500 Command \"REST\" not understood.\r\n"))
        #expect(!accepted("3500 not a reply\r\n"))
        #expect(!accepted("35"))
        #expect(!accepted("213 350\r\n"))
    }

    /// `125` and `150` (the last line of the reply) say a transfer's data starts.
    @Test func transferStartRepliesAreFoundByTheirCode() {
        func starting(_ line: String) -> Bool {
            Array(line.utf8).withUnsafeBytes { FileTransferAnswer.isTransferStarting(replyLine: $0) }
        }
        #expect(starting("125 Data connection already open. Transfer starting.\r\n"))
        #expect(starting("150 Opening BINARY mode data connection for file.bin (1000 bytes)\r\n"))
        #expect(!starting("150-first line of several\r\n"))
        #expect(!starting("226 Transfer complete.\r\n"))
        #expect(!starting("1500 not a reply\r\n"))
        #expect(!starting("12"))
        #expect(!starting("213 150\r\n"))
    }

    @Test func fileProtocolsByScheme() {
        #expect(FileProtocol(url: "FTP://h/f") == .ftp)
        #expect(FileProtocol(url: "ftps://h/f") == .ftps)
        #expect(FileProtocol(url: "sftp://u@h:2222/~/f") == .sftp)
        #expect(FileProtocol(url: "https://h/f") == nil)
        #expect(FileProtocol(url: "ftp") == nil)
    }

    @Test func sshKnownHostsAndPublicKeyDefaults() {
        var ssh = SSHAccess()
        #expect(ssh.knownHosts(home: "/home/u") == "/home/u/.ssh/known_hosts")
        #expect(ssh.knownHosts(home: nil) == nil)
        #expect(ssh.publicKey(exists: { _ in true }) == nil)
        ssh.privateKeyFile = "/k/id"
        #expect(ssh.publicKey(exists: { $0 == "/k/id.pub" }) == "/k/id.pub")
        #expect(ssh.publicKey(exists: { _ in false }) == nil)
        ssh.publicKeyFile = "/elsewhere.pub"
        ssh.knownHostsFile = "/kh"
        #expect(ssh.publicKey(exists: { _ in false }) == "/elsewhere.pub")
        #expect(ssh.knownHosts(home: "/home/u") == "/kh")
    }
}
