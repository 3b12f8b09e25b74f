import SlipstreamHTTP

extension DownloadQueue {
    /// What to download.
    public struct Request: Sendable, Equatable {
        /// The URL.
        public var url: String
        /// Further URLs of the same file (see `DownloadConfiguration.mirrors`).
        public var mirrors: [String]
        /// Where the file goes.
        public var destination: DownloadDestination
        /// The digest the finished file must have, if any.
        public var checksum: Checksum?
        /// Header fields sent on every request of this download (every connection, every
        /// mirror), besides the queue's `configuration.download.headers`: a field named here
        /// replaces the queue's fields of that name. Default none. Not kept in the session file.
        public var headers: HTTPHeaders
        /// A login for this download, instead of the queue's
        /// (`configuration.download.access.credentials`); sent only to the servers of its URL
        /// and mirrors, never to one a redirect leads to. Default nil: the queue's. Not kept in
        /// the session file.
        public var credentials: Credentials?
        /// Connections at most for this download (`DownloadConfiguration.connections`, 1 to
        /// 64), instead of the queue's. Default nil: the queue's. Not kept in the session file.
        public var connections: Int?
        /// The smallest part split off for another connection, in bytes
        /// (`DownloadConfiguration.minimumSplitSize`), instead of the queue's. Default nil: the
        /// queue's. Not kept in the session file.
        public var minimumSplitSize: Int64?
        /// The most bytes per second this download receives, on top of the queue's limit for
        /// all downloads together (`DownloadConfiguration.bytesPerSecondLimit`, instead of the
        /// queue's); changed while it runs with `DownloadQueue.setBytesPerSecondLimit(_:of:)`.
        /// Default nil: the queue's per-download setting. Not kept in the session file.
        public var bytesPerSecondLimit: Int64?
        /// The `User-Agent` of this download, instead of the queue's. Default nil: the queue's.
        /// Not kept in the session file.
        public var userAgent: String?
        /// A proxy URL for this download (`DownloadConfiguration.proxy`), instead of the
        /// queue's. Default nil: the queue's. Not kept in the session file.
        public var proxy: String?

        /// A request for `url` to `destination`; every setting left nil is the queue's.
        public init(
            url: String, mirrors: [String] = [], destination: DownloadDestination, checksum: Checksum? = nil,
            headers: HTTPHeaders = HTTPHeaders(), credentials: Credentials? = nil, connections: Int? = nil,
            minimumSplitSize: Int64? = nil, bytesPerSecondLimit: Int64? = nil, userAgent: String? = nil,
            proxy: String? = nil
        ) {
            self.url = url
            self.mirrors = mirrors
            self.destination = destination
            self.checksum = checksum
            self.headers = headers
            self.credentials = credentials
            self.connections = connections
            self.minimumSplitSize = minimumSplitSize
            self.bytesPerSecondLimit = bytesPerSecondLimit
            self.userAgent = userAgent
            self.proxy = proxy
        }

        /// The settings of this download: the queue's `base`, with its checksum, mirrors,
        /// headers, login and the settings it overrides.
        func configuration(from base: DownloadConfiguration) -> DownloadConfiguration {
            var configuration = base
            configuration.checksum = checksum
            configuration.mirrors = mirrors
            for field in headers { configuration.headers.remove(name: field.name) }
            for field in headers { configuration.headers.add(name: field.name, value: field.value) }
            if let credentials { configuration.access.credentials = credentials }
            if let connections { configuration.connections = connections }
            if let minimumSplitSize { configuration.minimumSplitSize = minimumSplitSize }
            if let bytesPerSecondLimit { configuration.bytesPerSecondLimit = bytesPerSecondLimit }
            if let userAgent { configuration.userAgent = userAgent }
            if let proxy { configuration.proxy = proxy }
            return configuration
        }
    }
}
