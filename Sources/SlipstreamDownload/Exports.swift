// The public part of the package-internal core (the event stream, the version) and the media
// types HLS downloads speak in (the variant selection) come with this library: its users
// import SlipstreamDownload alone.
@_exported import SlipstreamCore
@_exported import SlipstreamMedia
