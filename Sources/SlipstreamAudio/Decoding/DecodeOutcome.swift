/// What became of one packet a decoder was given: decoded, not decodable yet (priming), or not
/// decodable at all. Whatever the outcome, the decoder appended the packet's frames (silence
/// where it had no audio), so the stream keeps its length and timing; the outcome says whether
/// they are audio.
public enum DecodeOutcome: Hashable, Sendable {
    /// The packet's audio is in the output.
    case decoded
    /// The decoder cannot make this packet's audio yet, by design: the state it needs from the
    /// packets before it is missing (the first packet after a start or `reset()`, whose overlap
    /// is not there; an MP3 frame whose bit reservoir reaches back past the packets fed; packets
    /// passed over to line up the decoder). Silence, and no fault of the stream.
    case priming
    /// The packet is not valid data for its codec: the C library refused it or reported an error
    /// decoding it (libmpg123 an error code, or a Layer III frame whose side information is
    /// impossible; libfaad2 `frameInfo.error`; libvorbis and libopus a negative status; libFLAC
    /// its error callback). Its frames are silence, or what the library made of it.
    case undecodable
}
