/// What a connection is opened for.
package struct AudioSourceRequest: Hashable, Sendable {
    /// The stream offset of the first byte wanted.
    package var offset: Int64
    /// How many bytes are wanted from `offset`; nil: to the end of the stream.
    package var length: Int64?
    /// A seek to this time (seconds from the stream's start), for a source that seeks by time
    /// (`AudioSourceAnswer.seeksByTime`): it starts at or shortly before the time, tells where
    /// in `AudioSourceAnswer.startTime`, and numbers its bytes from `offset`. Nil: from `offset`.
    package var time: Double?

    /// A request for `length` bytes (nil: all) from `offset`, or from `time` when given.
    package init(offset: Int64 = 0, length: Int64? = nil, time: Double? = nil) {
        self.offset = offset
        self.length = length
        self.time = time
    }
}
