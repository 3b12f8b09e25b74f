/// What an internet radio station (SHOUTcast, Icecast) sends when asked for metadata
/// (`Icy-MetaData: 1`): the audio with a metadata block after every `icy-metaint` bytes.
public enum ICYStream {
    /// `audio` with a block after every `interval` bytes: block k (from 1) says
    /// `StreamTitle='titles[k-1]';` (NUL-padded to 16 bytes) when there is such a title, else is
    /// empty (its length byte 0).
    public static func build(audio: [UInt8], interval: Int, titles: [String?]) -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        var block = 0
        while index < audio.count {
            let end = min(index + interval, audio.count)
            out += audio[index..<end]
            index = end
            guard end % interval == 0 else { break }
            if block < titles.count, let title = titles[block] {
                var text = Array("StreamTitle='\(title)';".utf8)
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

    /// A station's answer carrying `body` (built with `interval`): the old `ICY 200 OK` status
    /// line, the station's name, no length (it ends when the connection closes).
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
