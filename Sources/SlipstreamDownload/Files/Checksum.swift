import CCrypto
#if canImport(Glibc)
import Glibc
#endif

/// An expected digest of a whole file, checked before the download is renamed into place,
/// computed with OpenSSL's libcrypto.
public struct Checksum: Sendable, Equatable, CustomStringConvertible {
    /// The digest algorithms offered: SHA-256, and SHA-1 and MD5 for old mirrors.
    public enum Algorithm: String, Sendable, CaseIterable {
        case sha256, sha1, md5

        /// The digest length in bytes.
        public var byteCount: Int {
            switch self {
            case .sha256: 32
            case .sha1: 20
            case .md5: 16
            }
        }

        fileprivate var digest: OpaquePointer? {
            switch self {
            case .sha256: slipstream_EVP_sha256()
            case .sha1: slipstream_EVP_sha1()
            case .md5: slipstream_EVP_md5()
            }
        }
    }

    /// The algorithm.
    public var algorithm: Algorithm
    /// The expected digest.
    public var digest: [UInt8]

    /// The digest `hex` (upper or lower case) of `algorithm`; throws `.invalidChecksum` for a
    /// digest of the wrong length or with other characters than hex digits.
    public init(_ algorithm: Algorithm, hex: String) throws(DownloadError) {
        guard let digest = Self.bytes(hex: Substring(hex)), digest.count == algorithm.byteCount else {
            throw DownloadError(
                .invalidChecksum,
                "'\(hex)' is not a \(algorithm.rawValue) digest: it needs "
                    + "\(algorithm.byteCount * 2) hex digits")
        }
        self.algorithm = algorithm
        self.digest = digest
    }

    /// Parses `ALGORITHM=HEX`, e.g. `sha256=9f86d0...` (or aria2's spelling, `sha-256=...`);
    /// throws `.invalidChecksum` for an unknown algorithm or a hex digest of the wrong length or
    /// with other characters (a checksum with a typo never turns verification off).
    public init(parsing text: String) throws(DownloadError) {
        let parts = text.split(separator: "=", maxSplits: 1)
        guard parts.count == 2, let algorithm = Algorithm(rawValue: parts[0].lowercased().replacing("-", with: "")) else {
            throw DownloadError(
                .invalidChecksum,
                "'\(text)' is not ALGORITHM=HEX with ALGORITHM one of "
                    + Algorithm.allCases.map(\.rawValue).joined(separator: ", "))
        }
        try self.init(algorithm, hex: String(parts[1]))
    }

    /// `sha256=...` in lower-case hex.
    public var description: String { "\(algorithm.rawValue)=\(Self.hex(digest))" }

    /// The digest of the file at `path`, read in 1 MiB blocks.
    static func digest(of path: String, algorithm: Algorithm) throws(DownloadError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw DownloadError(.disk, "cannot read \(path) to check it: \(FileSystem.lastError)", path: path) }
        defer { close(fd) }
        guard slipstream_crypto_loaded() != 0 else { throw DownloadError(.disk, String(cString: slipstream_crypto_missing)) }
        guard let context = slipstream_EVP_MD_CTX_new() else { throw DownloadError(.disk, "libcrypto is out of memory") }
        defer { slipstream_EVP_MD_CTX_free(context) }
        slipstream_EVP_DigestInit_ex(context, algorithm.digest, nil)
        var block = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = block.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw DownloadError(.disk, "cannot read \(path) to check it: \(FileSystem.lastError)", path: path)
            }
            if count == 0 { break }
            block.withUnsafeBytes { _ = slipstream_EVP_DigestUpdate(context, $0.baseAddress, count) }
        }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        slipstream_EVP_DigestFinal_ex(context, &digest, &length)
        return Array(digest[..<Int(length)])
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }

    private static func bytes(hex: Substring) -> [UInt8]? {
        let values = hex.utf8.map { byte -> UInt8? in
            switch byte {
            case 48...57: byte - 48
            case 65...70: byte - 55
            case 97...102: byte - 87
            default: nil
            }
        }
        guard values.count % 2 == 0, values.allSatisfy({ $0 != nil }) else { return nil }
        return stride(from: 0, to: values.count, by: 2).map { values[$0]! << 4 | values[$0 + 1]! }
    }
}
