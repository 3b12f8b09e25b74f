/// One link of an Ogg stream: the logical stream of audio the parser follows from its
/// beginning-of-stream page (a chained stream is a sequence of links, each with its own headers),
/// its codec's headers, and the arithmetic that says how many frames each of its packets gives
/// once gapless trimming by granule position is applied.
package struct OggLink: Sendable {
    /// The codec, with what the parser needs of its headers.
    package enum Codec: Sendable {
        case vorbis(VorbisSetup)
        case opus(OpusHead)
        /// FLAC in Ogg: the STREAMINFO block's 34 bytes.
        case flac(OggFLACStreamInfo)
    }

    /// What a header packet gave.
    package struct HeaderResult {
        /// The stream's format, once the last header has been read.
        package var format: AudioFormat?
        /// Where the Vorbis comment structure (vendor, then `NAME=value` fields) lies in the
        /// packet, for the comment header.
        package var comment: Range<Int>?
    }

    /// The logical stream's serial number.
    package let serialNumber: UInt32
    /// The link's number in the chain, from 1.
    package let number: Int
    package private(set) var codec: Codec
    /// Header packets still to come.
    package private(set) var headersLeft: Int
    /// A page of this stream that is not its first has been seen: a beginning-of-stream page
    /// from now on starts the next link.
    package var hasSeenDataPage = false
    /// The codec's position (granule units) at the end of the last packet, `nil` when unknown
    /// (after a discontinuity, until a page states it).
    package var position: Int64? = 0
    /// The block size of the last Vorbis packet (`nil` at the start, where the first packet
    /// gives no audio).
    private var previousBlockSize: Int?
    /// The codec's setup bytes as they are gathered (`AudioFormat.magicCookie`).
    private var cookie: [UInt8] = []

    /// A link whose first packet is `packet`; `nil` when its codec is not Vorbis, Opus or FLAC.
    package init?(identification packet: UnsafeRawBufferPointer, serialNumber: UInt32, number: Int) {
        self.serialNumber = serialNumber
        self.number = number
        if let setup = VorbisSetup(identification: packet) {
            codec = .vorbis(setup)
            headersLeft = 2
        } else if let head = OpusHead(packet) {
            codec = .opus(head)
            headersLeft = 1
        } else if let info = OggFLACStreamInfo(packet) {
            codec = .flac(info)
            // 0: not stated; the last metadata block says so instead.
            headersLeft = info.headerPacketCount == 0 ? Int.max : info.headerPacketCount
        } else {
            return nil
        }
        cookie = Array(packet)
    }

    /// The codec of a stream this parser does not play, by its first packet, for the refusal.
    package static func codecName(of packet: UnsafeRawBufferPointer) -> String? {
        let names: [(StaticString, String)] = [
            ("Speex   ", "Speex"), ("\u{80}theora", "Theora"), ("fishead\0", "Skeleton"), ("CELT    ", "CELT"),
            ("\u{80}daala", "Daala"), ("OVP80", "VP8"), ("\u{1}vorbis", "Vorbis"), ("OpusHead", "Opus"), ("\u{7F}FLAC", "FLAC"),
        ]
        return names.first { packet.starts(with: $0.0) }?.1
    }

    /// Whether the headers are all read.
    package var isReadingHeaders: Bool { headersLeft > 0 }

    /// Whether the next packet is a header of which only the start is read (a comment header,
    /// a FLAC metadata block): it may be cut at `OggParser.maximumCommentSize`.
    package var mayCutNextHeader: Bool {
        switch codec {
        case .vorbis: headersLeft == 2
        case .opus, .flac: headersLeft > 0
        }
    }

    /// Reads the next header packet; throws for a packet that is not the header expected.
    package mutating func readHeader(_ packet: UnsafeRawBufferPointer, offset: Int64) throws(AudioParserError) -> HeaderResult {
        var result = HeaderResult()
        switch codec {
        case .vorbis(var setup):
            if headersLeft == 2 {
                guard packet.starts(with: "\u{3}vorbis") else { throw Self.badHeader("Vorbis comment", offset) }
                result.comment = min(7, packet.count)..<packet.count
            } else {
                guard setup.readModes(setup: packet) else { throw Self.badHeader("Vorbis setup", offset) }
                codec = .vorbis(setup)
                result.format = vorbisFormat(setup, setupPacket: packet)
            }
        case .opus(let head):
            guard packet.starts(with: "OpusTags") else { throw Self.badHeader("Opus comment (OpusTags)", offset) }
            result.comment = 8..<packet.count
            result.format = AudioFormat(
                codec: .opus, codecDescription: describe("Opus"), sampleRate: OpusHead.sampleRate, channels: head.channels,
                framesPerPacket: 960, magicCookie: cookie)
        case .flac(let info):
            // A FLAC metadata block: type and last-block flag, 24-bit length, body.
            guard packet.count >= 4, packet[0] & 0x7F != 0x7F else { throw Self.badHeader("FLAC metadata", offset) }
            if packet[0] & 0x7F == 4 { result.comment = 4..<packet.count }
            if packet[0] & 0x80 != 0 || headersLeft == 1 {
                headersLeft = 1
                result.format = AudioFormat(
                    codec: .flac, codecDescription: describe("FLAC"), sampleRate: info.sampleRate, channels: info.channels,
                    framesPerPacket: info.maximumBlockSize, magicCookie: info.block)
            }
        }
        headersLeft -= 1
        return result
    }

    /// The frames an audio packet gives after gapless trimming: its decoded length, less the
    /// Opus pre-skip at the link's start and, at the end, what the granule position of the page
    /// it ends on leaves out (`pageGranule` -1 when the page states none). Vorbis is trimmed only
    /// on the stream's last page, as libvorbis does; Opus on every page, as opusdec does.
    package mutating func frames(
        of packet: UnsafeRawBufferPointer, pageGranule: Int64, isLastOnPage: Bool, isEndOfStream: Bool
    ) -> Int {
        let natural = naturalFrames(of: packet)
        let firstKept: Int64, limit: Int64?
        switch codec {
        case .vorbis:
            firstKept = 0
            limit = isEndOfStream && isLastOnPage && pageGranule >= 0 ? pageGranule : nil
        case .opus(let head):
            firstKept = Int64(head.preSkip)
            limit = pageGranule >= 0 ? pageGranule : nil
        case .flac:
            (firstKept, limit) = (0, nil)
        }
        let start = position
        // Granules come from the stream: sums saturate rather than trap on one near 2^63.
        let advanced = { (from: Int64) in from.addingReportingOverflow(Int64(natural)).overflow ? Int64.max : from + Int64(natural) }
        position = isLastOnPage && pageGranule >= 0 ? pageGranule : position.map(advanced)
        guard let start else { return natural }
        let end = advanced(start)
        let kept = min(end, limit ?? end) - max(start, firstKept)
        return Int(max(0, min(kept, Int64(natural))))
    }

    /// The frames a packet decodes to before any trimming (advancing the Vorbis block state).
    package mutating func naturalFrames(of packet: UnsafeRawBufferPointer) -> Int {
        switch codec {
        case .vorbis(let setup):
            guard let size = setup.blockSize(of: packet) else { return 0 }
            defer { previousBlockSize = size }
            return previousBlockSize.map { $0 / 4 + size / 4 } ?? 0
        case .opus: return OpusHead.frameCount(of: packet)
        case .flac: return OggFLACStreamInfo.frameCount(of: packet)
        }
    }

    /// The frames played up to granule position `granule` (for Opus, after its pre-skip).
    package func frames(atGranule granule: Int64) -> Int64 {
        if case .opus(let head) = codec { return max(granule - Int64(head.preSkip), 0) }
        return granule
    }

    /// Forgets the position and the last block size: the next bytes follow a discontinuity.
    package mutating func resynchronise() {
        position = nil
        previousBlockSize = nil
    }

    /// The codec's name, and the link's number after the first: a new link is a new format (its
    /// decoder starts afresh, as the reference decoders' do).
    private func describe(_ name: String) -> String {
        number == 1 ? "\(name) (Ogg)" : "\(name) (Ogg, link \(number))"
    }

    /// Vorbis's format: its three headers laced as Xiph lacing (as Matroska's CodecPrivate), with
    /// an empty comment header in place of the real one (libvorbis needs one, not its tags).
    private func vorbisFormat(_ setup: VorbisSetup, setupPacket: UnsafeRawBufferPointer) -> AudioFormat {
        let emptyComment: [UInt8] = Array("\u{3}vorbis".utf8) + [0, 0, 0, 0, 0, 0, 0, 0, 1]
        let laced = XiphLacing.lace([cookie, emptyComment, Array(setupPacket)])
        return AudioFormat(
            codec: .vorbis, codecDescription: describe("Vorbis"), sampleRate: setup.sampleRate, channels: setup.channels,
            framesPerPacket: setup.blockSizes.long / 2, magicCookie: laced)
    }

    private static func badHeader(_ name: String, _ offset: Int64) -> AudioParserError {
        AudioParserError(code: .malformed, message: "Ogg stream without its \(name) header", offset: offset)
    }
}
