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

        /// A request for `url` to `destination`.
        public init(
            url: String, mirrors: [String] = [], destination: DownloadDestination, checksum: Checksum? = nil,
            headers: HTTPHeaders = HTTPHeaders(), credentials: Credentials? = nil
        ) {
            self.url = url
            self.mirrors = mirrors
            self.destination = destination
            self.checksum = checksum
            self.headers = headers
            self.credentials = credentials
        }

        /// The settings of this download: the queue's `base`, with its checksum, mirrors,
        /// headers and login.
        func configuration(from base: DownloadConfiguration) -> DownloadConfiguration {
            var configuration = base
            configuration.checksum = checksum
            configuration.mirrors = mirrors
            for field in headers { configuration.headers.remove(name: field.name) }
            for field in headers { configuration.headers.add(name: field.name, value: field.value) }
            if let credentials { configuration.access.credentials = credentials }
            return configuration
        }
    }
}
