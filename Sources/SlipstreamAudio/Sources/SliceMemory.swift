/// The memory a source's reading thread reads its slices into.
// Unchecked: a raw allocation, written and read by the reading thread alone.
struct SliceMemory: @unchecked Sendable {
    let bytes: UnsafeMutableRawBufferPointer
}
