/// A Metalink document: the files it describes, each with its mirrors, size and hashes. Read
/// from Metalink 4 (RFC 5854, `.meta4`, namespace `urn:ietf:params:xml:ns:metalink`) or the
/// older Metalink 3 (`<metalink version="3.0">`, `.metalink`), written back as Metalink 4.
/// Pure: bytes in, values out, and back.
///
/// ```swift
/// let document = try MetalinkDocument.parse(bytes)
/// for file in document.files {
///     // file.name is a safe relative path; file.urls are best first; file.checksum is the
///     // strongest hash the downloader can check.
/// }
/// ```
///
/// What is refused, with the line: anything `XMLReader` refuses (not well formed, a DOCTYPE,
/// past its bounds: 8 MiB, 32 levels, 200,000 elements, 1 MiB of text in one element), a
/// document with no file, a file without a name or with an unsafe one (RFC 5854 §4.1.2.1: an
/// absolute path, a `..` or `.` component, control characters), two files of one name, a
/// size, priority or piece length that is not a number in range, a hash that is not hex of
/// its algorithm's length (a typo never turns verification off), two different hashes of
/// one algorithm, piece hashes that do not cover the size, and a file with no URL to fetch.
///
/// What is read and then left aside: `metaurl` (torrents and other metadata; a file that
/// has nothing else is refused, as slipstream does not speak BitTorrent), Metalink 3's
/// `type="bittorrent"` URLs, signatures, and the elements this type does not hold (copyright,
/// language, logo, os, publisher; elements of other namespaces, as the RFC asks).
public struct MetalinkDocument: Sendable, Equatable {
    /// Which Metalink a document was read from.
    public enum Format: Sendable, Equatable {
        /// RFC 5854.
        case metalink4
        /// Metalink 3.0, before the RFC.
        case metalink3
    }

    /// A digest of a whole file or of one piece, as the document gives it.
    public struct Hash: Sendable, Equatable {
        /// The algorithm, as IANA's "Hash Function Textual Names" writes it, lower case:
        /// `sha-256`, `sha-1`, `md5`, `sha-512` ... (Metalink 3's `sha1`, `sha256` read as those).
        public var algorithm: String
        /// The digest in lower-case hex (of the right length for the algorithms known).
        public var hex: String

        /// A digest of `algorithm` (lower case, IANA name) in lower-case `hex`.
        public init(algorithm: String, hex: String) {
            self.algorithm = algorithm
            self.hex = hex
        }
    }

    /// A place to fetch a file from.
    public struct URL: Sendable, Equatable {
        /// The URL (an IRI, as the document wrote it, spaces around it removed).
        public var url: String
        /// Its priority: 1 is tried first, up to 999,999; nil for none given (tried last).
        /// Metalink 3's preference P (100 best) reads as 101 - P.
        public var priority: Int?
        /// The country of the server, as given (ISO 3166-1 alpha-2 by the RFC, e.g. `de`).
        public var location: String?

        /// A URL with its priority and location.
        public init(url: String, priority: Int? = nil, location: String? = nil) {
            self.url = url
            self.priority = priority
            self.location = location
        }
    }

    /// The digests of a file's pieces: piece `i` is the bytes from `i * length`, `length` bytes
    /// (the last one shorter).
    public struct Pieces: Sendable, Equatable {
        /// The length of each piece in bytes (at least 1).
        public var length: Int64
        /// The algorithm, as in `Hash.algorithm`.
        public var algorithm: String
        /// Each piece's digest in lower-case hex, in order.
        public var hashes: [String]

        /// Piece digests of `algorithm`, `length` bytes each.
        public init(length: Int64, algorithm: String, hashes: [String]) {
            self.length = length
            self.algorithm = algorithm
            self.hashes = hashes
        }
    }

    /// One file of the document.
    public struct File: Sendable, Equatable {
        /// Where to save it: a relative path, checked safe (no absolute path, no `..` or `.`
        /// component, no empty component, no control character or backslash); it may name
        /// subfolders (`a/b.iso`).
        public var name: String
        /// Its size in bytes, when given.
        public var size: Int64?
        /// Its digests, one per algorithm, in document order.
        public var hashes: [Hash]
        /// Where to fetch it, best first: by priority (1 first), those without one last,
        /// document order among equals. Any scheme the document names: the caller keeps those
        /// it can fetch.
        public var urls: [URL]
        /// Its piece digests, when given: the strongest algorithm the downloader can check
        /// among those given (or the first given, when it can check none).
        public var pieces: Pieces?
        /// What it is (`identity`), e.g. "Debian".
        public var identity: String?
        /// Its version (`version`), e.g. "12.8".
        public var version: String?
        /// A description of it.
        public var description: String?

        /// A file named `name` fetched from `urls`.
        public init(
            name: String, size: Int64? = nil, hashes: [Hash] = [], urls: [URL], pieces: Pieces? = nil,
            identity: String? = nil, version: String? = nil, description: String? = nil
        ) {
            self.name = name
            self.size = size
            self.hashes = hashes
            self.urls = urls
            self.pieces = pieces
            self.identity = identity
            self.version = version
            self.description = description
        }

        /// The subfolders `name` puts the file in (`a/b` for `a/b/c.iso`), nil for none.
        public var folder: String? {
            name.utf8.lastIndex(of: UInt8(ascii: "/")).map { String(name[..<$0]) }
        }

        /// The file's own name, the last component of `name` (`c.iso` for `a/b/c.iso`).
        public var fileName: String {
            name.utf8.lastIndex(of: UInt8(ascii: "/")).map { String(name[name.utf8.index(after: $0)...]) } ?? name
        }

        /// `urls` that the downloader fetches (http, https, ftp, ftps, sftp, with a host), best
        /// first; the others (rsync, magnet ...) left out.
        public var downloadableURLs: [URL] {
            urls.filter { HTTPURL.refusal(of: $0.url) == nil }
        }

        /// The digest to check the finished file against: the strongest that `Checksum`
        /// computes (SHA-256, then SHA-1, then MD5); nil when the document gives none of those
        /// (a SHA-512 alone, say: it stays in `hashes`).
        public var checksum: Checksum? {
            for algorithm in [Checksum.Algorithm.sha256, .sha1, .md5] {
                if let hash = hashes.first(where: { $0.algorithm == MetalinkDocument.hashName(of: algorithm) }),
                    let checksum = try? Checksum(algorithm, hex: hash.hex)
                {
                    return checksum
                }
            }
            return nil
        }
    }

    /// Which Metalink it was read from (`.metalink4` for one made in code).
    public var format: Format
    /// The files, in document order (at least one in a document read).
    public var files: [File]
    /// The program that wrote it (`generator`).
    public var generator: String?
    /// Where the document itself comes from (`origin`), an IRI.
    public var origin: String?
    /// Whether `origin` is where an updated document can be fetched again (`dynamic="true"`;
    /// Metalink 3's `type="dynamic"`).
    public var isDynamic: Bool
    /// When it was first published, as written (RFC 3339 in Metalink 4).
    public var published: String?
    /// When it was last updated, as written.
    public var updated: String?

    /// A document of `files`.
    public init(
        format: Format = .metalink4, files: [File], generator: String? = nil, origin: String? = nil, isDynamic: Bool = false,
        published: String? = nil, updated: String? = nil
    ) {
        self.format = format
        self.files = files
        self.generator = generator
        self.origin = origin
        self.isDynamic = isDynamic
        self.published = published
        self.updated = updated
    }

    /// Metalink 4's namespace.
    public static let namespace = "urn:ietf:params:xml:ns:metalink"
    /// Metalink 3's namespace.
    static let namespace3 = "http://www.metalinker.org/"

    /// The IANA name of a `Checksum` algorithm.
    static func hashName(of algorithm: Checksum.Algorithm) -> String {
        switch algorithm {
        case .sha256: "sha-256"
        case .sha1: "sha-1"
        case .md5: "md5"
        }
    }
}
