// The public part of the package-internal core (the event stream, the version) comes with
// this library: its users import SlipstreamMedia alone.
@_exported import SlipstreamCore
