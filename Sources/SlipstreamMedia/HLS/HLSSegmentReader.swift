/// Turns the bytes of one HLS media segment into the bytes the audio parser reads, whatever
/// their split. The kind of segment is told by its first bytes: an MPEG transport stream (the
/// sync byte 0x47 every 188 bytes) goes through `MPEGTSDemuxer` and gives its ADTS or MPEG
/// audio; packed audio (ADTS or MPEG frames, led by an ID3 tag with the segment's timestamp)
/// gives the frames without the ID3 tags in front of them; fragmented MP4 (`ftyp`, `styp`,
/// `moof`, `moov` ... boxes, or any segment of a playlist with `EXT-X-MAP`) passes as it is.
///
/// A pure value, one per segment. Up to 189 bytes (two packets' sync bytes) are held while the kind is not known yet;
/// after that, output is only ever appended to the caller's buffer.
package struct HLSSegmentReader {
    /// What a segment holds.
    package enum Kind: Hashable, Sendable {
        case transportStream
        case packedAudio
        case fragmentedMP4
    }

    /// Why a segment cannot be read.
    package struct Failure: Error, Hashable, Sendable, CustomStringConvertible {
        package var message: String
        package var description: String { message }

        package init(message: String) {
            self.message = message
        }
    }

    /// The kind, once known.
    package private(set) var kind: Kind?
    /// The audio codec a transport stream carries, once its PMT was read.
    package var codec: AudioFormat.Codec? { demuxer?.codec }
    /// The presentation time (90 kHz, 33 bits) of the segment's first audio, once read: the
    /// PTS of a transport stream's first audio PES packet, or packed audio's ID3 timestamp
    /// (`com.apple.streaming.transportStreamTimestamp`). Nil for fMP4 (its `moof` says it).
    package private(set) var firstTimestamp: Int64?
    /// The first bytes, while the kind is not known.
    private var head: [UInt8] = []
    private var demuxer: MPEGTSDemuxer?
    /// Packed audio: the ID3 header being gathered (at a tag's start), or bytes of a tag left to skip.
    private var tagHeader: [UInt8] = []
    private var tagBytesToSkip = 0
    /// Packed audio: the first tag's body, gathered (up to `maximumTagGathered` bytes) for its timestamp.
    private var tagBody: [UInt8] = []
    private var isFirstTag = true
    /// The major version of the tag being skipped (3 or 4: how its frames' sizes are written).
    private var tagVersion: UInt8 = 4
    private var inFrames = false

    /// The most of packed audio's first tag gathered for its timestamp.
    private static let maximumTagGathered = 4096
    /// The owner of packed audio's timestamp `PRIV` frame, with its terminating zero.
    private static let timestampOwner = Array("com.apple.streaming.transportStreamTimestamp".utf8) + [0]

    /// The most bytes held to tell the kind: two packets' sync bytes.
    private static let headSize = MPEGTSDemuxer.packetSize + 1

    /// The MP4 box types a fragmented MP4 segment (or its initialization section) starts with.
    private static let mp4Boxes: Set<String> = ["ftyp", "styp", "moof", "moov", "sidx", "prft", "emsg", "free"]

    /// A reader for a segment of kind `kind` when the playlist says it (fMP4 with a map); nil:
    /// told by the bytes.
    package init(kind: Kind? = nil) {
        self.kind = kind
    }

    /// Reads `input`, appending the audio bytes it holds to `output`.
    package mutating func take(_ input: UnsafeRawBufferPointer, into output: inout [UInt8]) throws(Failure) {
        if let kind { return try read(input, kind: kind, into: &output) }
        let count = min(Self.headSize - head.count, input.count)
        head.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[0..<count]))
        guard let found = try Self.kind(of: head, isComplete: false) else { return }
        try decided(found, into: &output)
        try read(UnsafeRawBufferPointer(rebasing: input[count...]), kind: found, into: &output)
    }

    /// The segment ended: reads what was held, and checks that it held audio.
    package mutating func finish(into output: inout [UInt8]) throws(Failure) {
        if kind == nil, !head.isEmpty {
            guard let found = try Self.kind(of: head, isComplete: true) else { return }
            try decided(found, into: &output)
        }
        if kind == .transportStream, demuxer?.codec == nil {
            throw Failure(message: "the MPEG-TS segment holds no audio stream (no PAT and PMT naming one)")
        }
    }

    /// Reads `input` as `take(_:into:)` does.
    package mutating func take(_ input: [UInt8], into output: inout [UInt8]) throws(Failure) {
        var failure: Failure?
        input.withUnsafeBytes { bytes in
            do throws(Failure) { try take(bytes, into: &output) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// The kind is known: the bytes held are read.
    private mutating func decided(_ found: Kind, into output: inout [UInt8]) throws(Failure) {
        kind = found
        let held = head
        head = []
        try take(held, into: &output)
    }

    private mutating func read(_ input: UnsafeRawBufferPointer, kind: Kind, into output: inout [UInt8]) throws(Failure) {
        switch kind {
        case .fragmentedMP4:
            output.append(contentsOf: input)
        case .packedAudio:
            skipTags(input, into: &output)
        case .transportStream:
            if demuxer == nil { demuxer = MPEGTSDemuxer() }
            var first = firstTimestamp
            defer { firstTimestamp = first }
            do throws(MPEGTSDemuxer.Failure) {
                try demuxer!.take(input) { event in
                    switch event {
                    case .audio(let bytes): output.append(contentsOf: bytes)
                    case .timestamp(let timestamp): if first == nil { first = timestamp }
                    case .stream, .discontinuity: break
                    }
                }
            } catch {
                throw Failure(message: error.message)
            }
        }
    }

    /// Packed audio: drops each ID3v2 tag (a header of 10 bytes, its syncsafe size, a footer
    /// when flagged) found where a tag may start, and appends the frames.
    private mutating func skipTags(_ input: UnsafeRawBufferPointer, into output: inout [UInt8]) {
        var index = 0
        while index < input.count {
            if inFrames {
                output.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[index...]))
                return
            }
            if tagBytesToSkip > 0 {
                let count = min(tagBytesToSkip, input.count - index)
                if isFirstTag, tagBody.count < Self.maximumTagGathered {
                    let kept = min(count, Self.maximumTagGathered - tagBody.count)
                    tagBody.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[index..<index + kept]))
                }
                tagBytesToSkip -= count
                index += count
                if tagBytesToSkip == 0, isFirstTag {
                    isFirstTag = false
                    firstTimestamp = Self.timestamp(inTag: tagBody, version: tagVersion)
                    tagBody = []
                }
                continue
            }
            let count = min(10 - tagHeader.count, input.count - index)
            tagHeader.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[index..<index + count]))
            index += count
            let isTag = tagHeader.starts(with: Array("ID3".utf8).prefix(tagHeader.count))
            if !isTag {
                output.append(contentsOf: tagHeader)
                tagHeader = []
                inFrames = true
            } else if tagHeader.count == 10 {
                let size = tagHeader[6..<10].reduce(0) { $0 << 7 | Int($1 & 0x7F) }
                tagBytesToSkip = size + (tagHeader[5] & 0x10 != 0 ? 10 : 0)
                tagVersion = tagHeader[3]
                tagHeader = []
            }
        }
    }

    /// The timestamp of an ID3v2.3/2.4 tag's body (the frames after its 10-byte header;
    /// `version`: the tag's major version): the 33 bits of its `PRIV` frame owned by
    /// `com.apple.streaming.transportStreamTimestamp`.
    package static func timestamp(inTag body: [UInt8], version: UInt8) -> Int64? {
        var at = 0
        while at + 10 <= body.count {
            let id = body[at..<at + 4]
            guard id.allSatisfy({ $0 >= 0x30 && $0 <= 0x5A }) else { return nil }
            // The size is syncsafe in 2.4, plain in 2.3.
            let size = body[at + 4..<at + 8].reduce(0) { version >= 4 ? $0 << 7 | Int($1 & 0x7F) : $0 << 8 | Int($1) }
            let start = at + 10
            guard size <= body.count - start else { return nil }
            let frame = body[start..<start + size]
            if id.elementsEqual("PRIV".utf8), frame.count == timestampOwner.count + 8, frame.starts(with: timestampOwner) {
                return frame.suffix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) } & 0x1_FFFF_FFFF
            }
            at = start + size
        }
        return nil
    }

    /// The kind of a segment that starts with `head`; nil while more bytes are needed to tell
    /// (and `isComplete` is false: the segment may go on).
    package static func kind(of head: [UInt8], isComplete: Bool) throws(Failure) -> Kind? {
        if head.count >= 3, head.starts(with: "ID3".utf8) { return .packedAudio }
        if head.count >= 2, head[0] == 0xFF, head[1] & 0xE0 == 0xE0 { return .packedAudio }
        if head.count >= 8, let box = String(validating: head[4..<8], as: UTF8.self), mp4Boxes.contains(box) {
            return .fragmentedMP4
        }
        if head.first == 0x47, head.count <= MPEGTSDemuxer.packetSize {
            return isComplete ? .transportStream : nil
        }
        if head.first == 0x47, head[MPEGTSDemuxer.packetSize] == 0x47 { return .transportStream }
        guard head.count >= 8 || isComplete else { return nil }
        throw Failure(
            message: "the segment is not MPEG-TS, packed audio or fragmented MP4 (it starts with "
                + head.prefix(8).map { String($0, radix: 16) }.joined(separator: " ") + ")")
    }
}
