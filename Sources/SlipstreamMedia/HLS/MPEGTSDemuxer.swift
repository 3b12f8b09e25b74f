/// Takes the audio out of an MPEG transport stream (ISO/IEC 13818-1), as HLS segments carry it:
/// 188-byte packets; the PAT names the program's PMT, the PMT names its streams, and the first
/// audio stream's PES packets carry ADTS AAC or MPEG audio frames, which come out as one byte
/// stream for the audio parser, with each PES packet's PTS (90 kHz) as it starts.
///
/// A pure value that gives the same output for any split of its input: a packet cut across
/// inputs is gathered in a 188-byte buffer; whole packets are read in place, and their audio
/// bytes are given as slices of the input (never copied). Table sections are gathered up to
/// 1,024 bytes (their most), a PES header up to 264. Where a packet does not start with the
/// sync byte, bytes are skipped up to the next one (counted in `skippedBytes`), whatever the
/// split; a gap in the audio stream's continuity counter is reported.
/// Scrambled packets, and audio the player cannot decode (AC-3, LATM AAC ...), are errors.
package struct MPEGTSDemuxer {
    /// What the demuxer found.
    package enum Event {
        /// The audio stream was found: ADTS AAC or MPEG audio.
        case stream(AudioFormat.Codec)
        /// A PES packet of the audio stream starts; its presentation time (90 kHz ticks), if it has one.
        case timestamp(Int64?)
        /// Audio bytes (valid only during the call).
        case audio(UnsafeRawBufferPointer)
        /// Packets of the audio stream were lost (a gap in its continuity counter): the frame
        /// being gathered is broken.
        case discontinuity
    }

    /// Why a stream cannot be read.
    package struct Failure: Error, Hashable, Sendable, CustomStringConvertible {
        package var message: String
        package var description: String { message }
    }

    package static let packetSize = 188
    private static let sync: UInt8 = 0x47

    /// Bytes of a packet cut by the end of an input.
    private var partial: [UInt8] = []
    /// Bytes skipped looking for sync since it was last found.
    package private(set) var skippedBytes = 0
    /// The PMT's PID, once the PAT named it.
    private var pmtPID: Int?
    /// The audio stream's PID and codec, once the PMT named it.
    private var audioPID: Int?
    package private(set) var codec: AudioFormat.Codec?
    /// A table section being gathered, for the PID it comes on.
    private var section: [UInt8] = []
    private var sectionPID: Int?
    /// The continuity counter last seen on the audio PID.
    private var continuity: UInt8?
    /// A PES header being gathered (it may be cut across packets); nil otherwise.
    private var pesHeader: [UInt8]?
    /// In the payload of a PES packet of the audio stream.
    private var inPayload = false

    package init() {
        partial.reserveCapacity(Self.packetSize)
        section.reserveCapacity(1024)
    }

    /// Reads `input`, calling `emit` with what it holds, in order.
    package mutating func take(_ input: UnsafeRawBufferPointer, _ emit: (Event) -> Void) throws(Failure) {
        var index = 0
        if !partial.isEmpty {
            let count = min(Self.packetSize - partial.count, input.count)
            partial.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[0..<count]))
            index = count
            guard partial.count == Self.packetSize else { return }
            let packet = partial
            partial.removeAll(keepingCapacity: true)
            var failure: Failure?
            packet.withUnsafeBytes { bytes in
                do throws(Failure) { try read(packet: bytes, emit) } catch { failure = error }
            }
            if let failure { throw failure }
        }
        while index < input.count {
            guard input[index] == Self.sync else {
                index += 1
                skippedBytes += 1
                continue
            }
            guard input.count - index >= Self.packetSize else {
                partial.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[index...]))
                return
            }
            try read(packet: UnsafeRawBufferPointer(rebasing: input[index..<index + Self.packetSize]), emit)
            index += Self.packetSize
        }
    }

    private mutating func read(packet: UnsafeRawBufferPointer, _ emit: (Event) -> Void) throws(Failure) {
        let startsUnit = packet[1] & 0x40 != 0
        let pid = Int(packet[1] & 0x1F) << 8 | Int(packet[2])
        let scrambling = packet[3] >> 6
        let control = (packet[3] >> 4) & 0x3
        let counter = packet[3] & 0x0F
        guard packet[1] & 0x80 == 0, pid != 0x1FFF else { return }  // an error flagged by the sender, or padding
        var start = 4
        if control & 0x2 != 0 {
            start += 1 + Int(packet[4])
        }
        guard control & 0x1 != 0, start < Self.packetSize else { return }
        let payload = UnsafeRawBufferPointer(rebasing: packet[start...])
        if pid == audioPID {
            guard scrambling == 0 else { throw Failure(message: "the transport stream's audio is scrambled (encrypted)") }
            if let last = continuity, counter != (last + 1) & 0x0F, counter != last {
                emit(.discontinuity)
            }
            if counter == continuity { return }  // a duplicate packet
            continuity = counter
            readPES(payload, startsUnit: startsUnit, emit)
        } else if pid == 0 || pid == pmtPID {
            try readSection(payload, pid: pid, startsUnit: startsUnit, emit)
        }
    }

    // MARK: - Tables

    private mutating func readSection(_ payload: UnsafeRawBufferPointer, pid: Int, startsUnit: Bool, _ emit: (Event) -> Void)
        throws(Failure)
    {
        var body = payload[...]
        if startsUnit {
            let pointer = Int(payload[0])
            guard 1 + pointer < payload.count else { return }
            body = payload[(1 + pointer)...]
            section.removeAll(keepingCapacity: true)
            sectionPID = pid
        } else if sectionPID != pid || section.isEmpty {
            return
        }
        section.append(contentsOf: UnsafeRawBufferPointer(rebasing: body).prefix(1024 - section.count))
        guard section.count >= 3 else { return }
        let length = 3 + (Int(section[1] & 0x0F) << 8 | Int(section[2]))
        guard section.count >= length else {
            if section.count >= 1024 { section.removeAll(keepingCapacity: true) }
            return
        }
        let table = Array(section[0..<length])
        section.removeAll(keepingCapacity: true)
        switch (pid, table[0]) {
        case (0, 0x00): readPAT(table)
        case (pmtPID, 0x02): try readPMT(table, emit)
        default: break
        }
    }

    /// The PAT: the PMT of the first program.
    private mutating func readPAT(_ table: [UInt8]) {
        guard pmtPID == nil, table.count >= 12 else { return }
        var at = 8
        while at + 4 <= table.count - 4 {
            let program = Int(table[at]) << 8 | Int(table[at + 1])
            if program != 0 {
                pmtPID = Int(table[at + 2] & 0x1F) << 8 | Int(table[at + 3])
                return
            }
            at += 4
        }
    }

    /// The PMT: the first audio stream.
    private mutating func readPMT(_ table: [UInt8], _ emit: (Event) -> Void) throws(Failure) {
        guard audioPID == nil, table.count >= 16 else { return }
        let infoLength = Int(table[10] & 0x0F) << 8 | Int(table[11])
        var at = 12 + infoLength
        var refused: String?
        while at + 5 <= table.count - 4 {
            let type = table[at]
            let pid = Int(table[at + 1] & 0x1F) << 8 | Int(table[at + 2])
            let length = Int(table[at + 3] & 0x0F) << 8 | Int(table[at + 4])
            switch type {
            case 0x0F:
                (audioPID, codec) = (pid, .aac)
            case 0x03, 0x04:
                (audioPID, codec) = (pid, .mp3)
            case 0x11: refused = refused ?? "LATM AAC"
            case 0x81, 0xC1: refused = refused ?? "AC-3"
            case 0x87, 0xC2: refused = refused ?? "E-AC-3"
            case 0xCF, 0xDB: refused = refused ?? "SAMPLE-AES encrypted audio"
            default: break
            }
            if let codec, audioPID == pid {
                emit(.stream(codec))
                return
            }
            at += 5 + length
        }
        throw Failure(
            message: "the transport stream has no MPEG or AAC audio" + (refused.map { " (it has \($0), which is not played)" } ?? ""))
    }

    // MARK: - PES

    private mutating func readPES(_ payload: UnsafeRawBufferPointer, startsUnit: Bool, _ emit: (Event) -> Void) {
        var body = payload[...]
        if startsUnit {
            pesHeader = []
            inPayload = false
        }
        // Gather the header: its fixed 9 bytes, then the optional fields they announce.
        while var header = pesHeader, !body.isEmpty {
            let needed = header.count < 9 ? 9 : 9 + Int(header[8])
            let count = min(needed - header.count, body.count)
            header.append(contentsOf: UnsafeRawBufferPointer(rebasing: body.prefix(count)))
            body = body.dropFirst(count)
            pesHeader = header
            if header.count == 9, header[0] != 0 || header[1] != 0 || header[2] != 1 {
                pesHeader = nil  // not a PES packet: nothing is taken until the next one starts
                return
            }
            if header.count >= 9, header.count == 9 + Int(header[8]) {
                pesHeader = nil
                inPayload = true
                emit(.timestamp(Self.presentationTime(header)))
            }
        }
        guard inPayload, !body.isEmpty else { return }
        emit(.audio(UnsafeRawBufferPointer(rebasing: body)))
    }

    /// The PTS of a whole PES header, if it has one.
    private static func presentationTime(_ header: [UInt8]) -> Int64? {
        guard header[7] & 0x80 != 0, header.count >= 14 else { return nil }
        let b = header[9..<14].map(Int64.init)
        return (b[0] >> 1 & 0x07) << 30 | b[1] << 22 | (b[2] >> 1) << 15 | b[3] << 7 | b[4] >> 1
    }
}
