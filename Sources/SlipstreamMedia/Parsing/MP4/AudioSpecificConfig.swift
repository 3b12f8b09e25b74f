/// The MPEG-4 AudioSpecificConfig (ISO/IEC 14496-3 1.6.2.1) an MP4's `esds` carries: the audio
/// object type, rates and channels, enough to name the codec and to say what libfaad2 will
/// output after `NeAACDecInit2` with these bytes. Explicit SBR (HE-AAC: object type 5, or the
/// core's type followed by the SBR sync extension) and PS (HE-AAC v2: 29, or the PS sync
/// extension) are decoded at the extension rate, 2048 frames a packet (960-frame AAC: 1920).
package struct AudioSpecificConfig: Hashable, Sendable {
    /// The core audio object type: 2 for AAC LC, 1 Main, 3 SSR, 4 LTP.
    package var objectType: Int
    /// The core sampling rate in Hz.
    package var sampleRate: Int
    /// The channels the configuration states (1 to 8).
    package var channels: Int
    /// The output rate with SBR, when SBR is signalled explicitly.
    package var extensionSampleRate: Int?
    /// Parametric stereo is signalled (HE-AAC v2): a mono core decodes to stereo.
    package var hasParametricStereo: Bool
    /// 960 rather than 1024 core frames a packet.
    package var isShortFrame: Bool

    /// The sampling frequencies by their index (ISO/IEC 14496-3, as ADTS headers give them too).
    package static let rates = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]

    /// Reads `bytes`; `nil` when they are not an AAC configuration libfaad2 decodes.
    package init?(_ bytes: [UInt8]) {
        var reader = BitReader(bytes)
        guard var type = Self.objectType(&reader), let rate = Self.rate(&reader), let configuration = reader.read(4) else {
            return nil
        }
        var extensionRate: Int?
        var parametric = false
        if type == 5 || type == 29 {
            parametric = type == 29
            guard let rate = Self.rate(&reader), let core = Self.objectType(&reader) else { return nil }
            extensionRate = rate
            type = core
        }
        // AAC Main, LC, SSR and LTP; configuration 0 (a program config element) is not taken.
        guard (1...4).contains(type), (1...7).contains(configuration), let frameFlag = reader.read(1),
            let dependsOnCoreCoder = reader.read(1), dependsOnCoreCoder == 0 || reader.read(14) != nil,
            let extensionFlag = reader.read(1), extensionFlag == 0 || reader.read(1) != nil
        else { return nil }
        // SBR and PS signalled after the core's configuration, where a decoder that knows
        // nothing of them stops reading ("backward compatible", 1.6.6.2): the sync word 0x2B7,
        // object type 5 and the SBR flag with the output rate, then 0x548 and the PS flag.
        if extensionRate == nil, reader.read(11) == 0x2B7, Self.objectType(&reader) == 5, reader.read(1) == 1,
            let rate = Self.rate(&reader)
        {
            extensionRate = rate
            parametric = reader.read(11) == 0x548 && reader.read(1) == 1
        }
        objectType = type
        sampleRate = rate
        channels = configuration == 7 ? 8 : configuration
        extensionSampleRate = extensionRate
        hasParametricStereo = parametric
        isShortFrame = frameFlag == 1
    }

    /// The rate the decoder outputs.
    package var outputSampleRate: Int { extensionSampleRate ?? sampleRate }
    /// The channels the decoder outputs.
    package var outputChannels: Int { hasParametricStereo && channels == 1 ? 2 : channels }
    /// Frames each packet decodes to.
    package var framesPerPacket: Int { (isShortFrame ? 960 : 1024) * (extensionSampleRate == nil ? 1 : 2) }

    /// E.g. "HE-AAC (SBR)" or "AAC LC".
    package var description: String {
        let core = [1: "AAC Main", 2: "AAC LC", 3: "AAC SSR", 4: "AAC LTP"][objectType] ?? "AAC"
        if hasParametricStereo { return "HE-AAC v2 (\(core), SBR+PS)" }
        return extensionSampleRate == nil ? core : "HE-AAC (\(core), SBR)"
    }

    private static func objectType(_ reader: inout BitReader) -> Int? {
        guard let type = reader.read(5) else { return nil }
        guard type == 31 else { return type }
        return reader.read(6).map { 32 + $0 }
    }

    private static func rate(_ reader: inout BitReader) -> Int? {
        guard let index = reader.read(4) else { return nil }
        if index == 15 { return reader.read(24).flatMap { $0 > 0 ? $0 : nil } }
        return index < rates.count ? rates[index] : nil
    }
}

/// Reads big-endian bit fields from bytes.
private struct BitReader {
    package let bytes: [UInt8]
    package var bit = 0

    package init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The next `count` (at most 32) bits, `nil` past the end.
    package mutating func read(_ count: Int) -> Int? {
        guard bit + count <= bytes.count * 8 else { return nil }
        var value = 0
        for _ in 0..<count {
            value = value << 1 | Int(bytes[bit >> 3] >> (7 - UInt8(bit & 7)) & 1)
            bit += 1
        }
        return value
    }
}
