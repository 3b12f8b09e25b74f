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
}
