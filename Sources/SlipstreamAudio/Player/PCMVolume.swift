/// Software volume: scales samples in place.
enum PCMVolume {
    /// Multiplies every sample of `buffer` from frame `first` on by `factor` (0.0 to 1.0).
    static func scale(_ buffer: PCMBuffer, fromFrame first: Int, by factor: Double) {
        let bytes = UnsafeMutableRawBufferPointer(rebasing: buffer.mutableBytes[(first * buffer.format.bytesPerFrame)...])
        switch buffer.format.sampleType {
        case .signed16:
            let samples = bytes.bindMemory(to: Int16.self)
            let gain = Int32((factor * 32768).rounded())
            for i in samples.indices {
                samples[i] = Int16(truncatingIfNeeded: (Int32(samples[i]) * gain) >> 15)
            }
        case .float32:
            let samples = bytes.bindMemory(to: Float.self)
            let gain = Float(factor)
            for i in samples.indices { samples[i] *= gain }
        }
    }
}
