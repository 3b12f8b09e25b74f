/// Follows MPEG Layer III's bit reservoir over the frames fed to a decoder since a
/// discontinuity, to tell whether a frame's main data is all there: a frame's audio may start
/// up to 511 bytes (255 in MPEG-2/2.5) back in the frames before it (`main_data_begin`), and a
/// decoder that lacks those bytes makes noise, not audio.
struct BitReservoir: Sendable {
    /// Main-data bytes fed since the discontinuity, saturating well above the 511 a frame can
    /// reach back.
    private var available = 0

    /// Forgets everything fed: the next frame follows a discontinuity.
    mutating func reset() { available = 0 }

    /// Records the frame in `packet` (one whole MPEG frame, whose header is `header`) and tells
    /// whether all the main data it uses was fed: always for Layers I and II and for frames too
    /// short to read; for Layer III when its `main_data_begin` reaches no further back than the
    /// bytes fed since `reset()`.
    mutating func feed(_ packet: UnsafeRawBufferPointer, header: MPEGFrameHeader) -> Bool {
        guard header.layer == 3 else { return true }
        let sideInfoStart = 4 + (header.hasCRC ? 2 : 0)
        let sideInfoSize = header.version == .mpeg1 ? (header.channels == 1 ? 17 : 32) : (header.channels == 1 ? 9 : 17)
        guard packet.count >= sideInfoStart + sideInfoSize else { return true }
        let first = Int(packet[sideInfoStart]), second = Int(packet[sideInfoStart + 1])
        // main_data_begin: the first 9 bits of the side information (8 in MPEG-2/2.5).
        let reach = header.version == .mpeg1 ? first << 1 | second >> 7 : first
        let complete = reach <= available
        available = min(available + packet.count - sideInfoStart - sideInfoSize, 1 << 16)
        return complete
    }
}
