import Testing
@testable import SlipstreamMedia

/// The ADTS headers the recorder puts before AAC frames from MP4, read back by the project's
/// own ADTS header reader.
struct ADTSHeaderWriterTests {
    /// The header for a frame of `payload` bytes of `setup`, read back.
    static func readBack(_ setup: [UInt8], payload: Int) throws -> ADTSHeader {
        let template = try #require(ADTSHeaderWriter.template(for: setup))
        var bytes: [UInt8] = []
        ADTSHeaderWriter.append(template, payload: payload, to: &bytes)
        #expect(bytes.count == ADTSHeaderWriter.size)
        return try #require(bytes.withUnsafeBytes { ADTSHeader($0, at: 0) })
    }

    @Test(arguments: [1, 371, 2047, 2048, ADTSHeaderWriter.maximumPayload])
    func anLCFramesHeaderStatesItsSetupAndLength(payload: Int) throws {
        // AAC LC, 44.1 kHz, stereo.
        let header = try Self.readBack([0x12, 0x10], payload: payload)
        #expect(header.frameLength == payload + ADTSHeaderWriter.size)
        #expect(header.sampleRate == 44100 && header.channels == 2)
        #expect(header.profile == 1 && !header.hasCRC)
    }

    @Test func heAACGoesAsItsLCCoreAtTheCoreRate() throws {
        // AOT 5 (SBR) at an extension rate of 44.1 kHz over LC at 22.05 kHz, mono.
        let header = try Self.readBack([0x2B, 0x8A, 0x08, 0x00], payload: 100)
        #expect(header.sampleRate == 22050 && header.channels == 1 && header.profile == 1)
    }

    @Test func setupsADTSCannotStateHaveNoHeader() {
        // 960-sample frames (the frame length flag).
        #expect(ADTSHeaderWriter.template(for: [0x12, 0x14]) == nil)
        // Not an AudioSpecificConfig at all.
        #expect(ADTSHeaderWriter.template(for: []) == nil)
    }
}
