import Foundation

extension TestIcecast {
    /// The container a source sends: what ffmpeg muxes and the Content-Type it declares.
    public enum SourceFormat: Sendable {
        /// MPEG audio frames (`-f mp3`, audio/mpeg), without ID3 tag or Xing frame.
        case mp3
        /// AAC in ADTS frames (`-f adts`, audio/aac).
        case adts
        /// An Ogg stream (`-f ogg`, application/ogg): Icecast's Ogg mount, which gives a new
        /// listener the codec's header pages before the live ones.
        case ogg

        var ffmpegArguments: [String] {
            switch self {
            case .mp3: ["-f", "mp3", "-write_xing", "0", "-id3v2_version", "0", "-content_type", "audio/mpeg"]
            case .adts: ["-f", "adts", "-content_type", "audio/aac"]
            case .ogg: ["-f", "ogg", "-content_type", "application/ogg"]
            }
        }
    }

    /// What a source says about its station; Icecast passes it to listeners as `icy-name`,
    /// `icy-genre`, `icy-description`, `icy-url` (and `icy-br`).
    public struct Station: Sendable {
        public var name: String
        public var genre: String
        public var description: String
        public var url: String
        /// The bit rate (kbit/s) for `icy-br`: sent by ezstream sources only (ffmpeg's icecast
        /// protocol has no option for it).
        public var bitRate: Int?

        public init(name: String, genre: String, description: String, url: String, bitRate: Int? = nil) {
            self.name = name
            self.genre = genre
            self.description = description
            self.url = url
            self.bitRate = bitRate
        }

        /// The tests' station.
        public static let test = Station(
            name: "Slipstream Test Radio", genre: "Test Tones", description: "Sweeps and noise for the tests",
            url: "http://127.0.0.1/slipstream-test-radio", bitRate: 128)
    }

    /// Starts ffmpeg streaming `file` (an audio fixture, say) to `mount` at real time (`-re`),
    /// over and over, as it is (`-c copy`), and returns once the mount is live. The source
    /// stops when `stop()` is called, when the returned object goes, or when the test process
    /// ends; listeners' streams end when it stops.
    public func startSource(on mount: String, playing file: String, as format: SourceFormat, station: Station = .test) async throws
        -> IcecastSource
    {
        let arguments =
            [
                "ffmpeg", "-nostdin", "-hide_banner", "-nostats", "-v", "error", "-re", "-stream_loop", "-1", "-i", file,
                "-map", "0:a", "-c", "copy",
            ] + format.ffmpegArguments + [
                "-ice_name", station.name, "-ice_genre", station.genre, "-ice_description", station.description,
                "-ice_url", station.url, "icecast://source:\(sourcePassword)@127.0.0.1:\(port)\(mount)",
            ]
        return try await start(arguments, on: mount, folder: nil)
    }

    /// Starts ezstream streaming the MP3 `files` to `mount` one after the other, over and over,
    /// each as it is (so the stream's sample rate and channels change where the files' do),
    /// setting each file's title (its tags, else its name) as it starts; returns once the mount
    /// is live. Stops as `startSource`'s source does; it does not reconnect once Icecast drops
    /// it.
    public func startPlaylistSource(on mount: String, playing files: [String], station: Station = .test) async throws -> IcecastSource {
        let folder = try Self.makeFolder()
        let playlist = folder + "/playlist.m3u"
        let configuration = folder + "/ezstream.xml"
        let bitRate = station.bitRate.map { "<stream_bitrate>\($0)</stream_bitrate>" } ?? ""
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <ezstream>
              <servers><server>
                <protocol>HTTP</protocol><hostname>127.0.0.1</hostname><port>\(port)</port>
                <user>source</user><password>\(Self.escaped(sourcePassword))</password>
                <reconnect_attempts>1</reconnect_attempts>
              </server></servers>
              <streams><stream>
                <mountpoint>\(Self.escaped(mount))</mountpoint><format>MP3</format>
                <stream_name>\(Self.escaped(station.name))</stream_name><stream_genre>\(Self.escaped(station.genre))</stream_genre>
                <stream_description>\(Self.escaped(station.description))</stream_description>
                <stream_url>\(Self.escaped(station.url))</stream_url>\(bitRate)
              </stream></streams>
              <intakes><intake><type>playlist</type><filename>\(Self.escaped(playlist))</filename></intake></intakes>
            </ezstream>
            """
        do {
            try Data((files.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: playlist))
            // ezstream refuses a configuration (it holds a password) others can read.
            guard FileManager.default.createFile(atPath: configuration, contents: Data(xml.utf8), attributes: [.posixPermissions: 0o600])
            else { throw Failure(description: "cannot write \(configuration)") }
            return try await start(["ezstream", "-c", configuration], on: mount, folder: folder)
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
    }

    /// Runs `arguments` through `scripts/test-service.sh source` and waits for `mount` to be live.
    private func start(_ arguments: [String], on mount: String, folder: String?) async throws -> IcecastSource {
        let launched = try await offPool { try TestServices.launch(["source"] + arguments).get() }
        let source = IcecastSource(mount: mount, url: url(mount), launched: launched, folder: folder)
        do {
            try await waitUntilLive(mount) { !source.isRunning }
        } catch {
            await source.stop()
            throw error
        }
        return source
    }

    /// A new folder of its own under the temporary folder.
    private static func makeFolder() throws -> String {
        var template = Array((NSTemporaryDirectory() + "/slipstream-source.XXXXXX").utf8CString)
        guard let path = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw Failure(description: "mkdtemp: errno \(errno)")
        }
        return String(cString: path)
    }

    /// `text` with XML's special characters escaped.
    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
