/// Vorbis's channel order (also Opus's mapping family 1) against the order of WAV files, ALSA
/// and PulseAudio's default maps (FL FR FC LFE BL BR SL SR): Vorbis puts the centre second and
/// the LFE last, so 5.1 played as decoded sends the centre to the right speaker and the LFE to a
/// surround one. Pure: the decoders of Vorbis order use `sources(channels:)` to lay channels out
/// in the output's order (reference: the Vorbis I specification, section 4.3.9).
enum VorbisChannelOrder {
    /// For each output channel, the Vorbis channel it takes; nil when the orders agree (1, 2
    /// and 4 channels) or Vorbis defines none (over 8).
    static func sources(channels: Int) -> [Int]? {
        switch channels {
        case 3: [0, 2, 1]  // L C R -> L R C
        case 5: [0, 2, 1, 3, 4]  // FL C FR RL RR -> FL FR FC RL RR
        case 6: [0, 2, 1, 5, 3, 4]  // FL C FR RL RR LFE -> FL FR FC LFE RL RR
        case 7: [0, 2, 1, 6, 5, 3, 4]  // FL C FR SL SR RC LFE -> FL FR FC LFE RC SL SR
        case 8: [0, 2, 1, 7, 5, 6, 3, 4]  // FL C FR SL SR RL RR LFE -> FL FR FC LFE RL RR SL SR
        default: nil
        }
    }
}
