// The daemon speaks in the download library's types (requests, statuses, errors): its users
// import SlipstreamDaemon alone.
@_exported import SlipstreamDownload
