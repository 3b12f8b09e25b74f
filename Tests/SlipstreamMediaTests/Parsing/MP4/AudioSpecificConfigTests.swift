import Testing

@testable import SlipstreamMedia

/// The AudioSpecificConfig's forms (ISO/IEC 14496-3 1.6.2.1), as the bytes encoders write them:
/// what libfaad2 will output for each.
@Suite struct AudioSpecificConfigTests {
    @Test func plainLCAndFFmpegsNoSBRExtension() throws {
        // LC, 44.1 kHz, stereo.
        let plain = try #require(AudioSpecificConfig([0x12, 0x10]))
        #expect(plain.objectType == 2 && plain.sampleRate == 44100 && plain.channels == 2)
        #expect(plain.outputSampleRate == 44100 && plain.framesPerPacket == 1024)
        #expect(plain.description == "AAC LC")
        // ffmpeg's: LC, 22.05 kHz, stereo, then the SBR sync extension saying "no SBR".
        let ffmpeg = try #require(AudioSpecificConfig([0x13, 0x90, 0x56, 0xE5, 0x00]))
        #expect(ffmpeg.sampleRate == 22050 && ffmpeg.extensionSampleRate == nil && ffmpeg.framesPerPacket == 1024)
    }

    @Test func sbrSignalledAfterTheCoreIsHEAAC() throws {
        // The same with the SBR flag set and 44.1 kHz out (index 4): "backward compatible".
        let config = try #require(AudioSpecificConfig([0x13, 0x90, 0x56, 0xE5, 0xA0]))
        #expect(config.objectType == 2 && config.sampleRate == 22050)
        #expect(config.outputSampleRate == 44100 && config.framesPerPacket == 2048)
        #expect(!config.hasParametricStereo)
        #expect(config.description == "HE-AAC (AAC LC, SBR)")
        // Then the PS sync extension (0x548) with its flag: HE-AAC v2, a mono core out as stereo.
        // LC 22.05 kHz mono; 0x2B7, type 5, SBR 1, index 4; 0x548, PS 1.
        let v2 = try #require(AudioSpecificConfig([0x13, 0x88, 0x56, 0xE5, 0xA5, 0x48, 0x80]))
        #expect(v2.hasParametricStereo && v2.outputChannels == 2 && v2.outputSampleRate == 44100)
        #expect(v2.description == "HE-AAC v2 (AAC LC, SBR+PS)")
    }

    @Test func sbrSignalledByItsObjectTypeIsHEAAC() throws {
        // Type 5, 22.05 kHz (7), stereo, 44.1 kHz out (4), then the LC core.
        let config = try #require(AudioSpecificConfig([0x2B, 0x92, 0x08, 0x00]))
        #expect(config.objectType == 2 && config.sampleRate == 22050 && config.outputSampleRate == 44100)
        #expect(config.framesPerPacket == 2048)
    }

    @Test func whatLibfaad2DoesNotDecodeIsRefused() {
        #expect(AudioSpecificConfig([]) == nil)
        #expect(AudioSpecificConfig([0x12]) == nil)
        // Object type 42 (USAC) and a program config element (channel configuration 0).
        #expect(AudioSpecificConfig([0xF9, 0x48, 0x40]) == nil)
        #expect(AudioSpecificConfig([0x12, 0x00]) == nil)
    }
}
