import Foundation
import Testing
import TestSupport
import MediaTestSupport
@testable import SlipstreamAudio

/// What a test reads back from a WAV file: its header fields and its samples.
private struct ParsedWAV {
    var formatTag = 0
    var channels = 0
    var sampleRate = 0
    var byteRate = 0
    var blockAlign = 0
    var bitsPerSample = 0
    /// The SubFormat's format code of a WAVE_FORMAT_EXTENSIBLE file.
    var subFormat: Int?
    var factFrames: Int?
    var riffSize = 0
    var dataSize = 0
    var dataOffset = 0
    var samples: [UInt8] = []

    /// Parses `bytes` chunk by chunk, requiring a well-formed RIFF WAVE head.
    init(_ bytes: [UInt8]) throws {
        func field(_ offset: Int, _ size: Int) -> Int {
            (0..<size).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
        }
        func tag(_ offset: Int) -> String { String(decoding: bytes[offset..<offset + 4], as: UTF8.self) }
        try #require(bytes.count >= 12 && tag(0) == "RIFF" && tag(8) == "WAVE")
        riffSize = field(4, 4)
        var offset = 12
        while offset + 8 <= bytes.count {
            let size = field(offset + 4, 4)
            let body = offset + 8
            switch tag(offset) {
            case "fmt ":
                formatTag = field(body, 2)
                channels = field(body + 2, 2)
                sampleRate = field(body + 4, 4)
                byteRate = field(body + 8, 4)
                blockAlign = field(body + 12, 2)
                bitsPerSample = field(body + 14, 2)
                if formatTag == 0xFFFE { subFormat = field(body + 24, 2) }
            case "fact":
                factFrames = field(body, 4)
            case "data":
                dataSize = size
                dataOffset = body
                try #require(body + size <= bytes.count, "data chunk past the end of the file")
                samples = Array(bytes[body..<body + size])
                return
            default:
                break
            }
            offset = body + size + size % 2
        }
        Issue.record("no data chunk")
    }
}

@Suite struct WAVFileOutputTests {
    static let formats = [
        PCMFormat(sampleRate: 44100, channels: 2, sampleType: .signed16),
        PCMFormat(sampleRate: 48000, channels: 1, sampleType: .signed16),
        PCMFormat(sampleRate: 44100, channels: 2, sampleType: .float32),
        PCMFormat(sampleRate: 22050, channels: 6, sampleType: .signed16),
        PCMFormat(sampleRate: 32000, channels: 3, sampleType: .float32),
    ]

    @Test(arguments: formats)
    func fileHoldsWhatWasWritten(format: PCMFormat) throws {
        let path = try TestFiles.makeTemporaryFolder() + "/out.wav"
        let pcm = TestPCM.sine(format, frames: format.sampleRate * 3 / 2 + 7)
        let output = WAVFileOutput(path: path)
        try output.open(format)
        try TestPCM.write(pcm, to: output, format: format, framesPerWrite: 1152)
        #expect(output.framesPlayed() == Int64(pcm.count / format.bytesPerFrame))
        output.close()
        output.close()

        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let wav = try ParsedWAV(bytes)
        let isFloat = format.sampleType == .float32
        let extensible = format.channels > 2
        #expect(wav.formatTag == (extensible ? 0xFFFE : isFloat ? 3 : 1))
        #expect(wav.subFormat == (extensible ? (isFloat ? 3 : 1) : nil))
        #expect(wav.channels == format.channels)
        #expect(wav.sampleRate == format.sampleRate)
        #expect(wav.byteRate == format.sampleRate * format.bytesPerFrame)
        #expect(wav.blockAlign == format.bytesPerFrame)
        #expect(wav.bitsPerSample == format.bytesPerSample * 8)
        #expect(wav.factFrames == (isFloat ? pcm.count / format.bytesPerFrame : nil))
        #expect(wav.riffSize == bytes.count - 8)
        #expect(wav.dataSize == pcm.count)
        #expect(wav.dataOffset == (extensible ? (isFloat ? 80 : 68) : isFloat ? 58 : 44))
        #expect(wav.samples == pcm)

        // The project's own WAV parser agrees on the format.
        let run = ParserRun(bytes) { bytes.count }
        #expect(run.error == nil)
        #expect(run.final.format?.sampleRate == format.sampleRate)
        #expect(run.final.format?.channels == format.channels)
        #expect(run.final.format?.pcm?.isFloat == isFloat)
    }

    /// A file whose writer never closed it (a killed process) is valid up to the last sync point.
    @Test(arguments: [formats[0], formats[2]])
    func unclosedFileIsValidUpToTheLastSync(format: PCMFormat) throws {
        let path = try TestFiles.makeTemporaryFolder() + "/crashed.wav"
        let pcm = TestPCM.sine(format, frames: format.sampleRate * 2)
        let output = WAVFileOutput(path: path)
        try output.open(format)
        try TestPCM.write(pcm, to: output, format: format, framesPerWrite: 4410)

        // Read while the writer is still open, as a crash would leave it.
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let wav = try ParsedWAV(bytes)
        let secondsSynced = Double(wav.dataSize) / Double(format.sampleRate * format.bytesPerFrame)
        #expect(secondsSynced >= 2 - WAVFileOutput.syncSeconds - 0.1)
        #expect(wav.dataSize % format.bytesPerFrame == 0)
        #expect(wav.riffSize == wav.dataOffset - 8 + wav.dataSize)
        #expect(wav.factFrames == (format.sampleType == .float32 ? wav.dataSize / format.bytesPerFrame : nil))
        #expect(wav.samples == Array(pcm.prefix(wav.dataSize)))

        // drain() is a sync point: everything is in the header then.
        try output.drain()
        let drained = try ParsedWAV([UInt8](Data(contentsOf: URL(fileURLWithPath: path))))
        #expect(drained.samples == pcm)
        output.close()
    }

    @Test func reopenKeepsTheFileAndRefusesAnotherFormat() throws {
        let path = try TestFiles.makeTemporaryFolder() + "/reopen.wav"
        let format = PCMFormat(sampleRate: 44100, channels: 2)
        let pcm = TestPCM.sine(format, frames: 1000)
        let output = WAVFileOutput(path: path)
        try output.open(format)
        try TestPCM.write(pcm, to: output, format: format, framesPerWrite: 1000)
        try output.open(format)
        #expect(output.framesPlayed() == 0)
        try TestPCM.write(pcm, to: output, format: format, framesPerWrite: 300)
        try output.flush()
        #expect(output.framesPlayed() == 0)
        let other = PCMFormat(sampleRate: 48000, channels: 2)
        let error = #expect(throws: AudioOutputError.self) { try output.open(other) }
        #expect(error?.code == .formatNotSupported)
        #expect(error?.message.contains(path) == true)
        output.close()
        let wav = try ParsedWAV([UInt8](Data(contentsOf: URL(fileURLWithPath: path))))
        #expect(wav.samples == pcm + pcm)

        // After close, open starts the file again.
        try output.open(other)
        output.close()
        #expect(try ParsedWAV([UInt8](Data(contentsOf: URL(fileURLWithPath: path)))).dataSize == 0)
    }

    /// A file is not heard as it is written; a pipe may feed a player that plays as it reads.
    @Test func aFileIsNotHeardAsItIsWrittenAndAPipeMayBe() throws {
        let folder = try TestFiles.makeTemporaryFolder()
        let format = PCMFormat(sampleRate: 44100, channels: 2)
        let file = WAVFileOutput(path: folder + "/file.wav")
        try file.open(format)
        #expect(!file.playsInRealTime)
        file.close()
        let fifo = folder + "/pipe.wav"
        #expect(mkfifo(fifo, 0o600) == 0)
        // A reader first (opening a FIFO to write waits for one).
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        try #require(reader >= 0)
        defer { Foundation.close(reader) }
        let pipe = WAVFileOutput(path: fifo)
        try pipe.open(format)
        #expect(pipe.playsInRealTime)
        pipe.close()
        #expect(NullOutput(paced: true).playsInRealTime)
        #expect(!NullOutput(paced: false).playsInRealTime)
    }

    @Test func unwritableFileIsAClearError() throws {
        let path = try TestFiles.makeTemporaryFolder() + "/missing/out.wav"
        let output = WAVFileOutput(path: path)
        let error = #expect(throws: AudioOutputError.self) {
            try output.open(PCMFormat(sampleRate: 44100, channels: 2))
        }
        #expect(error?.code == .fileFailed)
        #expect(error?.message == "WAV file \"\(path)\": cannot create it: No such file or directory")
    }
}
