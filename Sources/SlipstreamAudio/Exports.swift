// The public part of the package-internal core (the event stream, the version) comes with
// this library: its users import SlipstreamAudio alone.
@_exported import SlipstreamCore
