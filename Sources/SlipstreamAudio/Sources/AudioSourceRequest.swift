/// What a connection is opened for.
package struct AudioSourceRequest: Hashable, Sendable {
    /// The stream offset of the first byte wanted.
    package var offset: Int64
    /// How many bytes are wanted from `offset`; nil: to the end of the stream.
    package var length: Int64?

    /// A request for `length` bytes (nil: all) from `offset`.
    package init(offset: Int64 = 0, length: Int64? = nil) {
        self.offset = offset
        self.length = length
    }
}
