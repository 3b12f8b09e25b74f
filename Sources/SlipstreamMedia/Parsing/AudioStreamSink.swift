/// Receives what an `AudioStreamParser` finds, synchronously, while it parses.
public protocol AudioStreamSink {
    /// The stream's properties changed (a format, totals, tags, encoder delay ...); `properties`
    /// is the whole current set. Not called for the running-mean bit rate alone, which changes
    /// with every packet: read `AudioStreamParser.properties` for its latest value.
    mutating func audioStream(propertiesChanged properties: AudioStreamProperties)
    /// A complete packet; `bytes` are its contents, valid only during the call.
    mutating func audioStream(packet: AudioPacket, bytes: UnsafeRawBufferPointer)
}

/// What an `AudioStreamParser` found, as values (the packet bytes left out): the output of
/// `AudioStreamParser.parse(_:)` for callers that do not need the packets' contents.
public enum AudioStreamEvent: Hashable, Sendable {
    /// The properties changed; the value is the whole current set.
    case propertiesChanged(AudioStreamProperties)
    /// A complete packet.
    case packet(AudioPacket)
}

/// A sink that collects events, for the array-returning conveniences.
package struct AudioStreamEventCollector: AudioStreamSink {
    package var events: [AudioStreamEvent] = []

    package mutating func audioStream(propertiesChanged properties: AudioStreamProperties) {
        events.append(.propertiesChanged(properties))
    }

    package mutating func audioStream(packet: AudioPacket, bytes: UnsafeRawBufferPointer) {
        events.append(.packet(packet))
    }
}
