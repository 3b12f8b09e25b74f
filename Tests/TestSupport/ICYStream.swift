/// What an internet radio station (SHOUTcast, Icecast) sends a client that asked for metadata
/// (`Icy-MetaData: 1`): the audio with a metadata block after every `icy-metaint` bytes.
public enum ICYStream {
    /// `audio` with a block after every `interval` bytes. Block k (from 0) holds
    /// `StreamTitle='<titles[k]>';` as the given bytes (any encoding), NUL-padded to a multiple
    /// of 16, when there is one and it is not nil, else is empty (a length byte of 0).
    public static func build(audio: [UInt8], interval: Int, titles: [[UInt8]?]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(audio.count + audio.count / interval * 64)
        var index = 0
        var block = 0
        while index < audio.count {
            let end = min(index + interval, audio.count)
            out += audio[index..<end]
            index = end
            guard end % interval == 0 else { break }
            if block < titles.count, let title = titles[block] {
                var text = Array("StreamTitle='".utf8) + title + Array("';".utf8)
                while text.count % 16 != 0 { text.append(0) }
                out.append(UInt8(text.count / 16))
                out += text
            } else {
                out.append(0)
            }
            block += 1
        }
        return out
    }

    /// The same, for titles given as text (UTF-8).
    public static func build(audio: [UInt8], interval: Int, titles: [String?]) -> [UInt8] {
        build(audio: audio, interval: interval, titles: titles.map { $0.map { Array($0.utf8) } })
    }

    /// A station's answer carrying `body` (built with `interval`): the old `ICY 200 OK` status
    /// line, the station's name and bit rate, no length (it ends when the connection closes).
    public static func response(_ body: [UInt8], interval: Int, name: String) -> TestHTTPServer.Response {
        var response = TestHTTPServer.Response(
            status: 200,
            headers: [("Content-Type", "audio/mpeg"), ("icy-metaint", "\(interval)"), ("icy-name", name), ("icy-br", "128")],
            body: body)
        response.statusLine = "ICY 200 OK"
        response.untilClose = true
        return response
    }
}
