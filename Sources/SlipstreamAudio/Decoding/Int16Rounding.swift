/// Float samples to 16-bit integers as libvorbisfile's `ov_read` and libfaad2's 16-bit output
/// make them: scaled by 32768, clipped to -32768...32767, rounded to nearest (ties to even, as
/// `lrintf` in the default rounding mode). The rounding adds 1.5 x 2^23, which leaves the
/// integer in the float's low mantissa bits: no call to `lrintf` per sample and no trap on a
/// value out of range (NaN gives some sample, not a crash), so a loop over a packet vectorizes.
enum Int16Rounding {
    @inline(__always)
    static func sample(_ value: Float) -> Int16 {
        let clipped = min(max(value * 32768, -32768), 32767)
        let shifted = clipped + 12_582_912
        return Int16(truncatingIfNeeded: Int32(bitPattern: shifted.bitPattern) &- 0x4B40_0000)
    }
}
