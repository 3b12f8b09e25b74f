import Testing
@testable import SlipstreamAudio

/// GaplessTrim's rule (libmpg123's) on made-up streams; the fixtures check it against mpg123.
struct GaplessTrimTests {
    /// 10 packets of 1152 frames, LAME delay 576 and padding 1000, decoder delay 529.
    let lame = GaplessTrim(encoderDelay: 576, decoderDelay: 529, encoderPadding: 1000, statedFrameCount: 11520)

    @Test func keepsTheFramesBetweenDelayAndPadding() {
        #expect(lame.firstKeptFrame == 1105)
        #expect(lame.trimmedTailFrame == 11520 - 1000 + 529)
        #expect(lame.keptFrames(start: 0, frameCount: 1152) == 1105..<1152)
        #expect(lame.keptFrames(start: 1152, frameCount: 1152) == 0..<1152)
        #expect(lame.keptFrames(start: 9216, frameCount: 1152) == 0..<1152)
        #expect(lame.keptFrames(start: 10368, frameCount: 1152) == 0..<(11049 - 10368))
        #expect(lame.keptFrames(start: 11049, frameCount: 471) == 0..<0)
        let kept = stride(from: Int64(0), to: 11520, by: 1152).map { lame.keptFrames(start: $0, frameCount: 1152).count }.reduce(0, +)
        #expect(kept == 11520 - 576 - 1000)
    }

    @Test func framesPastTheStatedOnesAreKeptWhole() {
        #expect(lame.keptFrames(start: 11520, frameCount: 1152) == 0..<1152)
        #expect(lame.presentationFrame(ofRawFrame: 11520) == 11520 - 1576)
        #expect(lame.presentationFrame(ofRawFrame: 11530) == 11520 - 1576 + 10)
        #expect(lame.rawFrame(ofPresentationFrame: 11520 - 1576 + 10) == 11530)
    }

    @Test func paddingShorterThanTheDecoderDelayKeepsTheWholeTail() {
        let trim = GaplessTrim(encoderDelay: 576, decoderDelay: 529, encoderPadding: 100, statedFrameCount: 11520)
        #expect(trim.trimmedTailFrame == 11520)
        #expect(trim.keptFrames(start: 10368, frameCount: 1152) == 0..<1152)
    }

    @Test func withoutAStatedCountNothingIsTrimmed() {
        for trim in [
            GaplessTrim.none, GaplessTrim(encoderDelay: 576, decoderDelay: 529, encoderPadding: 1000, statedFrameCount: 0),
            GaplessTrim(properties: AudioStreamProperties(), decoderDelay: 529),
        ] {
            #expect(trim.keptFrames(start: 0, frameCount: 1152) == 0..<1152)
            #expect(trim.presentationFrame(ofRawFrame: 5000) == 5000)
            #expect(trim.rawFrame(ofPresentationFrame: 5000) == 5000)
        }
    }

    @Test func presentationAndRawFramesMapBothWays() {
        for presentation in stride(from: Int64(0), to: 12000, by: 97) {
            let raw = lame.rawFrame(ofPresentationFrame: presentation)
            #expect(lame.presentationFrame(ofRawFrame: raw) == presentation)
            let block = raw / 1152 * 1152
            #expect(lame.keptFrames(start: block, frameCount: 1152).contains(Int(raw - block)))
        }
        // A trimmed frame maps to the next kept one.
        #expect(lame.presentationFrame(ofRawFrame: 0) == 0)
        #expect(lame.presentationFrame(ofRawFrame: 1104) == 0)
        #expect(lame.presentationFrame(ofRawFrame: 1106) == 1)
        #expect(lame.presentationFrame(ofRawFrame: 11200) == 11049 - 1105)
    }

    @Test func theParserPropertiesGiveTheRule() {
        var properties = AudioStreamProperties()
        properties.format = AudioFormat(
            codec: .mp3, codecDescription: "MPEG-1 Layer III", sampleRate: 44100, channels: 2, framesPerPacket: 1152)
        properties.statedPacketCount = 10
        properties.encoderDelay = 576
        properties.encoderPadding = 1000
        #expect(GaplessTrim(properties: properties, decoderDelay: 529) == lame)
        properties.encoderDelay = nil
        properties.encoderPadding = nil
        let xingOnly = GaplessTrim(properties: properties, decoderDelay: 529)
        #expect(xingOnly.firstKeptFrame == 529)
        #expect(xingOnly.trimmedTailFrame == 11520)
    }
}
