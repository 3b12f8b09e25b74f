// The public part of the package-internal core (the event stream, the version) and the format
// types the player's API speaks in (formats, tags, chapters, playlists) come with this library:
// its users import SlipstreamAudio alone.
@_exported import SlipstreamCore
@_exported import SlipstreamMedia
