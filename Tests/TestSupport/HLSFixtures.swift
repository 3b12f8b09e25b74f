import Foundation

/// HLS streams made by ffmpeg at test time (once per test process) in folders nginx serves,
/// from one 7-second stereo source: a tone sweep with noise, so that every frame differs.
public enum HLSFixtures {
    private static let lock = NSLock()

    /// The folder (under nginx's) holding stream `name`, made by `make(folder)` the first time.
    private static func folder(_ name: String, make: (String) throws -> Void) throws -> String {
        lock.lock()
        defer { lock.unlock() }
        let folder = try TestNginx.filesFolder() + "/hls-\(getpid())-" + name
        if !FileManager.default.fileExists(atPath: folder + "/.done") {
            try? FileManager.default.removeItem(atPath: folder)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try make(folder)
            _ = FileManager.default.createFile(atPath: folder + "/.done", contents: nil)
        }
        return folder
    }

    /// The URL of `file` in stream `name`'s folder.
    public static func url(_ name: String, _ file: String) throws -> String {
        try TestNginx.url("hls-\(getpid())-\(name)/\(file)")
    }

    /// The source: 7 s of 44.1 kHz stereo WAV.
    public static func source() throws -> String {
        try folder("source") { folder in
            try ExternalProgram.runBlocking([
                "sox", "-R", "-D", "-n", "-r", "44100", "-c", "2", "-b", "16", folder + "/source.wav", "synth", "7", "sine", "200-2000",
                "pinknoise", "gain", "-6",
            ])
        } + "/source.wav"
    }

    private static func ffmpeg(_ arguments: [String]) throws {
        try ExternalProgram.runBlocking(["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y"] + arguments)
    }

    /// VOD in MPEG-TS segments of AAC (`index.m3u8`, `s0.ts` ...); its folder.
    public static func transportStream() throws -> String {
        let source = try source()
        return try folder("ts") { folder in
            try ffmpeg([
                "-i", source, "-c:a", "aac", "-b:a", "128k", "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod",
                "-hls_segment_filename", folder + "/s%d.ts", folder + "/index.m3u8",
            ])
        }
    }

    /// A copy of `transportStream()` in a folder of its own under nginx's (named `prefix` and a
    /// random number), so that nginx's log counts one test's requests alone: the folder's name
    /// (its URL path without the slash) and the segments' names in play order. Off the pool.
    public static func servedTransportStreamCopy(prefix: String) async throws -> (folder: String, segments: [String]) {
        try await offPool {
            let fixture = try transportStream()
            let name = "\(prefix)-\(UInt32.random(in: 0...UInt32.max))"
            let served = try TestNginx.filesFolder() + "/" + name
            try FileManager.default.createDirectory(atPath: served, withIntermediateDirectories: true)
            let files = try FileManager.default.contentsOfDirectory(atPath: fixture).filter { $0.hasSuffix(".ts") || $0 == "index.m3u8" }
            for file in files { try FileManager.default.copyItem(atPath: fixture + "/" + file, toPath: served + "/" + file) }
            let segments = files.filter { $0.hasSuffix(".ts") }.sorted { $0.count != $1.count ? $0.count < $1.count : $0 < $1 }
            return (name, segments)
        }
    }

    /// VOD in MPEG-TS segments of MP3, all in one file (`EXT-X-BYTERANGE`); its folder.
    public static func byteRanges() throws -> String {
        let source = try source()
        return try folder("ranges") { folder in
            try ffmpeg([
                "-i", source, "-c:a", "libmp3lame", "-b:a", "128k", "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod",
                "-hls_flags", "single_file", "-hls_segment_filename", folder + "/all.ts", folder + "/index.m3u8",
            ])
        }
    }

    /// VOD in fMP4 segments (`init.mp4`, `f0.m4s` ...); its folder.
    public static func fragmentedMP4() throws -> String {
        let source = try source()
        return try folder("fmp4") { folder in
            try ffmpeg([
                "-i", source, "-c:a", "aac", "-b:a", "128k", "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod",
                "-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4", "-hls_segment_filename", folder + "/f%d.m4s",
                folder + "/index.m3u8",
            ])
        }
    }

    /// VOD in MPEG-TS segments encrypted with AES-128 (`index.m3u8`, `e0.ts` ..., key `k.key`
    /// with a fixed key), with the IV `iv` (hexadecimal), else each segment's sequence number:
    /// ffmpeg writes it in the playlist either way, and `noiv.m3u8` is the playlist without
    /// it; its folder. `plain` names the same stream unencrypted, `plain0.ts` ...
    public static func encrypted(iv: String?) throws -> String {
        let source = try source()
        return try folder("aes-" + (iv == nil ? "sequence" : "iv")) { folder in
            try Data((0..<16).map { UInt8($0 * 17) }).write(to: URL(fileURLWithPath: folder + "/k.key"))
            try (["k.key", folder + "/k.key"] + (iv.map { [$0] } ?? [])).joined(separator: "\n").write(
                toFile: folder + "/keyinfo", atomically: true, encoding: .utf8)
            let common = ["-i", source, "-c:a", "aac", "-b:a", "128k", "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod"]
            try ffmpeg(
                common + ["-hls_key_info_file", folder + "/keyinfo", "-hls_segment_filename", folder + "/e%d.ts", folder + "/index.m3u8"])
            try ffmpeg(common + ["-hls_segment_filename", folder + "/plain%d.ts", folder + "/plain.m3u8"])
            let playlist = try String(contentsOfFile: folder + "/index.m3u8", encoding: .utf8)
            try playlist.replacingOccurrences(of: #",IV=0x[0-9a-fA-F]+"#, with: "", options: .regularExpression).write(
                toFile: folder + "/noiv.m3u8", atomically: true, encoding: .utf8)
        }
    }

    /// `fragmentedMP4()` with its initialization section and segments encrypted with AES-128
    /// (by openssl: ffmpeg cannot write encrypted fMP4), the `EXT-X-KEY` (key `k.key`, the
    /// fixed IV 00 01 ... 0f) before the `EXT-X-MAP`, so that it covers both (`index.m3u8`);
    /// its folder. The plain stream is `fragmentedMP4()`'s.
    public static func encryptedFragmentedMP4() throws -> String {
        let plain = try fragmentedMP4()
        return try folder("aes-fmp4") { folder in
            let key = (0..<16).map { UInt8($0 * 17) }, iv = "000102030405060708090a0b0c0d0e0f"
            try Data(key).write(to: URL(fileURLWithPath: folder + "/k.key"))
            let playlist = try String(contentsOfFile: plain + "/index.m3u8", encoding: .utf8)
            var lines: [String] = []
            for line in playlist.split(separator: "\n").map(String.init) {
                var file = line
                if line.hasPrefix("#EXT-X-MAP:") {
                    lines.append("#EXT-X-KEY:METHOD=AES-128,URI=\"k.key\",IV=0x\(iv)")
                    file = line.replacingOccurrences(of: #"^.*URI="([^"]+)".*$"#, with: "$1", options: .regularExpression)
                } else if line.hasPrefix("#") || line.isEmpty {
                    lines.append(line)
                    continue
                }
                try ExternalProgram.runBlocking([
                    "openssl", "enc", "-aes-128-cbc", "-K", key.map { String(format: "%02x", $0) }.joined(), "-iv", iv,
                    "-in", plain + "/" + file, "-out", folder + "/" + file,
                ])
                lines.append(line)
            }
            try (lines.joined(separator: "\n") + "\n").write(toFile: folder + "/index.m3u8", atomically: true, encoding: .utf8)
        }
    }

    /// The MPEG-TS stream of `transportStream()` (44.1 kHz stereo), then after an
    /// `EXT-X-DISCONTINUITY` the same source at 22.05 kHz mono (`d0.ts` ...), in `index.m3u8`;
    /// its folder.
    public static func discontinuity() throws -> String {
        let first = try transportStream()
        let source = try source()
        return try folder("discontinuity") { folder in
            try ffmpeg([
                "-i", source, "-c:a", "aac", "-ar", "22050", "-ac", "1", "-b:a", "48k", "-f", "hls", "-hls_time", "2",
                "-hls_playlist_type", "vod", "-hls_segment_filename", folder + "/d%d.ts", folder + "/second.m3u8",
            ])
            let lines = { (path: String) in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init) }
            var playlist = try lines(first + "/index.m3u8").filter { $0 != "#EXT-X-ENDLIST" }
            for line in try lines(first + "/index.m3u8") where line.hasSuffix(".ts") {
                try FileManager.default.copyItem(atPath: first + "/" + line, toPath: folder + "/" + line)
            }
            playlist.append("#EXT-X-DISCONTINUITY")
            playlist += try lines(folder + "/second.m3u8").filter { $0.hasPrefix("#EXTINF") || $0.hasSuffix(".ts") }
            playlist.append("#EXT-X-ENDLIST")
            try (playlist.joined(separator: "\n") + "\n").write(toFile: folder + "/index.m3u8", atomically: true, encoding: .utf8)
        }
    }

    /// A master playlist (`master.m3u8`) of two audio-only variants, 64 and 160 kb/s, in
    /// folders `v0` and `v1`; its folder.
    public static func master() throws -> String {
        let source = try source()
        return try folder("master") { folder in
            try ffmpeg([
                "-i", source, "-map", "0:a", "-map", "0:a", "-c:a", "aac", "-b:a:0", "64k", "-b:a:1", "160k", "-f", "hls",
                "-hls_time", "2", "-hls_playlist_type", "vod", "-master_pl_name", "master.m3u8", "-var_stream_map", "a:0 a:1",
                "-hls_segment_filename", folder + "/v%v/s%d.ts", folder + "/v%v/index.m3u8",
            ])
        }
    }

    /// Packed audio, which ffmpeg does not write: its ADTS cut at frame boundaries into
    /// segments of about two seconds, each led by an ID3 tag holding the timestamp `PRIV` frame
    /// (`packed.m3u8`, `p0.aac` ...); its folder. The whole ADTS stream is `whole.aac`.
    public static func packedAudio() throws -> String {
        let source = try source()
        return try folder("packed") { folder in
            try ffmpeg(["-i", source, "-c:a", "aac", "-b:a", "128k", "-f", "adts", folder + "/whole.aac"])
            let adts = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/whole.aac")))
            var frames: [Range<Int>] = []
            var at = 0
            while at + 7 <= adts.count {
                let length = Int(adts[at + 3] & 0x03) << 11 | Int(adts[at + 4]) << 3 | Int(adts[at + 5]) >> 5
                frames.append(at..<at + length)
                at += length
            }
            var playlist = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:3\n#EXT-X-PLAYLIST-TYPE:VOD\n"
            let perSegment = 86  // 1024-sample frames: 2 s at 44.1 kHz
            for (index, start) in stride(from: 0, to: frames.count, by: perSegment).enumerated() {
                let chunk = frames[start..<min(start + perSegment, frames.count)]
                let body = adts[chunk.first!.lowerBound..<chunk.last!.upperBound]
                let segment = id3Timestamp(Int64(start) * 1024 * 90_000 / 44_100) + body
                try Data(segment).write(to: URL(fileURLWithPath: folder + "/p\(index).aac"))
                playlist += "#EXTINF:\(Double(chunk.count) * 1024 / 44_100),\np\(index).aac\n"
            }
            try (playlist + "#EXT-X-ENDLIST\n").write(toFile: folder + "/packed.m3u8", atomically: true, encoding: .utf8)
        }
    }

    /// An ID3v2.4 tag with the `com.apple.streaming.transportStreamTimestamp` PRIV frame.
    private static func id3Timestamp(_ pts: Int64) -> [UInt8] {
        let owner = Array("com.apple.streaming.transportStreamTimestamp".utf8) + [0]
        let timestamp = (0..<8).map { UInt8(truncatingIfNeeded: pts >> (56 - 8 * $0)) }
        let frameBody = owner + timestamp
        let frame = Array("PRIV".utf8) + syncsafe(frameBody.count) + [0, 0] + frameBody
        return Array("ID3".utf8) + [4, 0, 0] + syncsafe(frame.count) + frame
    }

    private static func syncsafe(_ value: Int) -> [UInt8] {
        (0..<4).map { UInt8((value >> (21 - 7 * $0)) & 0x7F) }
    }

    /// The bytes of `path`.
    public static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
