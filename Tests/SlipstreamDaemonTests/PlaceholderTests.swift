import Testing

@testable import SlipstreamDaemon
