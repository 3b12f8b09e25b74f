import SlipstreamHTTP
import Testing
@testable import SlipstreamAudio

/// The audio errors' shape: a code, a message, the facts as fields, the underlying error kept
/// (and left out of equality), no advice.
struct AudioErrorTests {
    @Test func aTransferErrorKeepsItsFactsAndCause() {
        let http = HTTPError(.httpStatus, url: "http://a/b.mp3", message: "the server answered HTTP 503", status: 503)
        let error = AudioStreamerError(http, offset: 4096)
        #expect(error.code == .httpStatus)
        #expect(error.url == "http://a/b.mp3")
        #expect(error.status == 503)
        #expect(error.offset == 4096)
        #expect(error.isRetryable)
        #expect((error.underlying as? HTTPError) == http)
        #expect(AudioStreamerError(HTTPError(.timeout, url: "u", message: "slow")).code == .timedOut)
        #expect(AudioStreamerError(HTTPError(.resolve, url: "u", message: "no host")).code == .network)
    }

    @Test func aParserErrorNamesTheFileOrURLAndTheOffset() {
        let parser = AudioParserError(code: .unrecognisedFormat, message: "no MP3 found", offset: 12)
        let file = AudioStreamerError(parserError: parser, source: AudioLocation("/music/a.mp3"))
        #expect(file.code == .unsupportedFormat)
        #expect(file.path == "/music/a.mp3" && file.url == nil)
        #expect(file.offset == 12)
        #expect(file.message == "/music/a.mp3: no MP3 found")
        #expect((file.underlying as? AudioParserError) == parser)
        let url = AudioStreamerError(
            parserError: AudioParserError(code: .malformed, message: "short fmt"),
            source: AudioLocation("http://h/a.wav"))
        #expect(url.code == .noAudioData && url.url == "http://h/a.wav" && url.path == nil)
    }

    @Test func equalityComparesTheFactsNotTheUnderlyingError() {
        let a = AudioStreamerError(.decoder, "broken", underlying: AudioDecoderError(.decodingFailed, "x"))
        let b = AudioStreamerError(.decoder, "broken")
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a != AudioStreamerError(.decoder, "broken", offset: 1))
        #expect(AudioOutputError(.unavailable, "gone", systemStatus: 2) != AudioOutputError(.unavailable, "gone"))
    }

    @Test func codesNameThemselves() {
        #expect(AudioStreamerError.Code.rangeNotHonoured.description == "range not honoured")
        #expect(AudioParserError.Code.malformed.description == "malformed")
        #expect(AudioDecoderError.Code.initializationFailed.description == "initialization failed")
        #expect(AudioOutputError.Code.formatNotSupported.description == "format not supported")
    }
}
