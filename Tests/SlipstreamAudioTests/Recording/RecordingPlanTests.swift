import Testing
@testable import SlipstreamAudio

/// The recorder's decisions: where files end, what the next one is called and tagged.
struct RecordingPlanTests {
    let station = StationInfo(name: "Test FM", genre: "Jazz")

    @Test func aFolderGetsAFilePerTitleOpenedAtItsFirstAudio() {
        var plan = RecordingPlan(splitsAtTitles: true)
        var ends = plan.codecStarts(.mp3)
        #expect(!ends)
        // Before the first title: named after the station, tagged with its name.
        var file = plan.audioComes(station: station)
        #expect(
            file
                == RecordingPlan.NewFile(
                    base: "Test FM", fileExtension: "mp3", tag: ID3TagWriter.tag(title: "Test FM", artist: nil), title: nil))
        file = plan.audioComes(station: station)
        #expect(file == nil)
        // A title ends the file; two titles at one byte make one file, the second's.
        ends = plan.titleStarts(StreamTitle(title: "A - One"))
        #expect(ends)
        ends = plan.titleStarts(StreamTitle(title: "B/C - Two", url: "http://x/"))
        #expect(!ends)
        file = plan.audioComes(station: station)
        #expect(file?.base == "B-C - Two")
        #expect(file?.tag == ID3TagWriter.tag(title: "Two", artist: "B/C"))
        #expect(file?.title == StreamTitle(title: "B/C - Two", url: "http://x/"))
        // An empty title: back to the station's name; no station: untitled, no tag.
        ends = plan.titleStarts(StreamTitle(title: ""))
        #expect(ends)
        file = plan.audioComes(station: nil)
        #expect(file == RecordingPlan.NewFile(base: "untitled", fileExtension: "mp3", tag: nil, title: nil))
    }

    @Test func aNewExtensionEndsAFolderFileButNotOneFile() {
        var folder = RecordingPlan(splitsAtTitles: true)
        _ = folder.codecStarts(.mp3)
        _ = folder.titleStarts(StreamTitle(title: "Song"))
        _ = folder.audioComes(station: nil)
        var ends = folder.codecStarts(.mp3)
        #expect(!ends)
        ends = folder.codecStarts(.aac)
        #expect(ends)
        let aac = folder.audioComes(station: nil)
        // AAC files get no tag; the title goes on.
        #expect(aac == RecordingPlan.NewFile(base: "Song", fileExtension: "aac", tag: nil, title: StreamTitle(title: "Song")))

        var one = RecordingPlan(splitsAtTitles: false)
        _ = one.codecStarts(.mp3)
        var file = one.audioComes(station: station)
        #expect(file?.tag == ID3TagWriter.tag(title: "Test FM", artist: nil))
        #expect(file != nil && file?.title == nil)
        ends = one.titleStarts(StreamTitle(title: "Song"))
        #expect(!ends)
        ends = one.codecStarts(.aac)
        #expect(!ends)
        file = one.audioComes(station: station)
        #expect(file == nil)
    }

    @Test func pcmIsNotRecorded() {
        var plan = RecordingPlan(splitsAtTitles: true)
        _ = plan.codecStarts(.pcm)
        let file = plan.audioComes(station: nil)
        #expect(file == nil)
        #expect(RecordingPlan.fileExtension(for: .mp2) == "mp2")
    }

    /// A FLAC file starts with a header of the STREAMINFO from the setup mark and the title's
    /// comment; in a folder a new STREAMINFO ends the file (its frames could not follow), in one
    /// file it does not.
    @Test func aFLACFileStartsWithItsHeaderAndANewSetupEndsAFolderFile() throws {
        let streamInfo = [UInt8](repeating: 0x11, count: FLACStreamInfo.size)
        var plan = RecordingPlan(splitsAtTitles: true)
        _ = plan.codecStarts(.flac)
        var ends = plan.setupStarts(streamInfo)
        #expect(!ends)
        _ = plan.titleStarts(StreamTitle(title: "Band - Song"))
        let new = plan.audioComes(station: station)
        let file = try #require(new)
        #expect(file.fileExtension == "flac" && file.base == "Band - Song")
        let header = try #require(file.tag)
        #expect(
            header
                == FLACRecordingHeader.bytes(streamInfo: streamInfo, comment: VorbisCommentWriter.block(StreamTitle(title: "Band - Song"))))
        // fLaC, STREAMINFO (not last), its body with the total and MD5 cleared, then the comment (last).
        #expect(Array(header[0..<8]) == Array("fLaC".utf8) + [0, 0, 0, 34])
        var kept = Array(streamInfo[0..<14])
        kept[13] &= 0xF0
        #expect(Array(header[8..<22]) == kept)
        #expect(header[22..<42].allSatisfy { $0 == 0 })
        #expect(header[42] == 0x84)
        ends = plan.setupStarts(streamInfo)
        #expect(!ends)
        ends = plan.setupStarts([UInt8](repeating: 0x22, count: FLACStreamInfo.size))
        #expect(ends)

        var one = RecordingPlan(splitsAtTitles: false)
        _ = one.codecStarts(.flac)
        _ = one.setupStarts(streamInfo)
        let wholeFile = one.audioComes(station: station)
        let whole = try #require(wholeFile)
        // One file is tagged with the station's name, as an MPEG one.
        #expect(whole.tag == FLACRecordingHeader.bytes(streamInfo: streamInfo, comment: VorbisCommentWriter.block(nil, orName: "Test FM")))
        ends = one.setupStarts([UInt8](repeating: 0x22, count: FLACStreamInfo.size))
        #expect(!ends)
    }
}
