import Foundation
import Testing
@testable import slipstream
import SlipstreamAudio

/// `play --json`'s lines, without I/O: each event's object and fields, JSON that parses, and
/// progress at most 4 times a second.
struct PlayEventJSONTests {
    /// The lines for `event` at `now`, each parsed.
    static func objects(_ writer: inout PlayEventJSON, _ event: AudioStreamerEvent, now: Int64 = 0) throws -> [[String: Any]] {
        try writer.lines(for: event, now: now).map { line in
            #expect(!line.contains("\n"))
            return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    @Test func writesEachEventWithItsFields() throws {
        var writer = PlayEventJSON()
        var objects = try Self.objects(&writer, .station(StationInfo(name: "Radio \"X\"", genre: "Jazz", url: "http://x/", bitRate: 128)))
        #expect(objects.count == 1)
        #expect(objects[0]["event"] as? String == "station")
        #expect(objects[0]["name"] as? String == "Radio \"X\"")
        #expect(objects[0]["genre"] as? String == "Jazz" && objects[0]["url"] as? String == "http://x/")
        #expect(objects[0]["bitrate"] as? Int == 128)
        #expect(objects[0]["description"] == nil)

        objects = try Self.objects(&writer, .titleChanged(StreamTitle(title: "Band - Song\n\u{1}✓", url: "http://cover/")))
        #expect(objects[0]["event"] as? String == "title")
        #expect(objects[0]["title"] as? String == "Band - Song\n\u{1}✓")
        #expect(objects[0]["url"] as? String == "http://cover/")
        #expect(objects[0]["artist"] as? String == "Band" && objects[0]["song"] as? String == "Song\n\u{1}✓")
        objects = try Self.objects(&writer, .titleChanged(StreamTitle(title: "Just this")))
        #expect(objects[0].keys.sorted() == ["event", "title"])

        objects = try Self.objects(&writer, .bufferingStarted) + Self.objects(&writer, .bufferingEnded)
        #expect(objects.map { $0["status"] as? String } == ["started", "ended"])

        objects = try Self.objects(&writer, .stateChanged(.waitingForOutput))
        #expect(objects[0]["event"] as? String == "state" && objects[0]["state"] as? String == "waitingForOutput")

        let error = AudioStreamerError(.httpStatus, "http://x/: HTTP 404", status: 404)
        objects = try Self.objects(&writer, .reconnecting(attempt: 2, AudioStreamerError(.network, "lost")))
        #expect(objects[0]["event"] as? String == "reconnecting" && objects[0]["attempt"] as? Int == 2)
        #expect(objects[0]["code"] as? String == "network" && objects[0]["message"] as? String == "lost")
        objects = try Self.objects(&writer, .stateChanged(.stopped(.error(error))))
        #expect(objects.map { $0["event"] as? String } == ["error", "state"])
        #expect(objects[0]["code"] as? String == "http status" && objects[0]["message"] as? String == "http://x/: HTTP 404")
        #expect(objects[1]["state"] as? String == "stopped" && objects[1]["reason"] as? String == "error")
    }

    /// Every count of undecodable frames the player tells is a line; the error that stops a
    /// stream most of whose frames are undecodable has its code.
    @Test func writesUndecodableFrames() throws {
        var writer = PlayEventJSON()
        let objects = try Self.objects(&writer, .undecodableFrames(count: 3, total: 1200))
        #expect(objects.count == 1 && objects[0].keys.sorted() == ["count", "event", "total"])
        #expect(objects[0]["event"] as? String == "undecodable")
        #expect(objects[0]["count"] as? Int == 3 && objects[0]["total"] as? Int == 1200)
        let error = AudioStreamerError(.undecodable, "x.mp3: most of the stream could not be decoded: 40 of 64 frames")
        let stopped = try Self.objects(&writer, .stateChanged(.stopped(.error(error))))
        #expect(stopped.first?["code"] as? String == "undecodable")
    }

    @Test func writesTheFormatOnlyWhenItChanges() throws {
        var writer = PlayEventJSON()
        var properties = AudioStreamProperties()
        #expect(try Self.objects(&writer, .properties(properties)).isEmpty)
        properties.format = AudioFormat(
            codec: .mp3, codecDescription: "MPEG-1 Layer III", sampleRate: 44100, channels: 2, framesPerPacket: 1152)
        let format = try Self.objects(&writer, .properties(properties))
        #expect(format.count == 1)
        #expect(format[0]["event"] as? String == "format" && format[0]["codec"] as? String == "mp3")
        #expect(format[0]["sampleRate"] as? Int == 44100 && format[0]["channels"] as? Int == 2)
        #expect(format[0]["description"] as? String == "MPEG-1 Layer III")
        properties.duration = 12
        #expect(try Self.objects(&writer, .properties(properties)).isEmpty)
        properties.format?.sampleRate = 22050
        #expect(try Self.objects(&writer, .properties(properties)).first?["sampleRate"] as? Int == 22050)
    }

    @Test func writesPlaylistEvents() throws {
        var writer = PlayEventJSON()
        var objects = try Self.objects(&writer, .playlistEntryStarted(url: "http://a/1.mp3", title: "One"))
        #expect(objects[0]["event"] as? String == "playlist" && objects[0]["status"] as? String == "started")
        #expect(objects[0]["url"] as? String == "http://a/1.mp3" && objects[0]["title"] as? String == "One")
        objects = try Self.objects(&writer, .playlistEntryStarted(url: "http://a/2.mp3", title: nil))
        #expect(objects[0].keys.sorted() == ["event", "status", "url"])
        let error = AudioStreamerError(.httpStatus, "http://a/2.mp3: HTTP 404", url: "http://a/2.mp3", status: 404)
        objects = try Self.objects(&writer, .playlistEntrySkipped(url: "http://a/2.mp3", error))
        #expect(objects[0]["event"] as? String == "playlist" && objects[0]["status"] as? String == "skipped")
        #expect(objects[0]["url"] as? String == "http://a/2.mp3" && objects[0]["code"] as? String == "http status")
        #expect(objects[0]["message"] as? String == "http://a/2.mp3: HTTP 404")
    }

    @Test func writesRecordingEvents() throws {
        var writer = PlayEventJSON()
        let file = AudioRecordingFile(path: "rec/Band - Song.mp3", title: StreamTitle(title: "Band - Song"))
        var objects = try Self.objects(&writer, .recordingStarted(file))
        #expect(objects[0]["event"] as? String == "recording" && objects[0]["status"] as? String == "started")
        #expect(objects[0]["path"] as? String == "rec/Band - Song.mp3" && objects[0]["title"] as? String == "Band - Song")
        var done = file
        done.audioBytes = 4000
        done.droppedBytes = 417
        objects = try Self.objects(&writer, .recordingFinished(done))
        #expect(
            objects[0]["status"] as? String == "finished" && objects[0]["bytes"] as? Int == 4000 && objects[0]["dropped"] as? Int == 417)
        objects = try Self.objects(&writer, .recordingFailed(AudioStreamerError(.recording, "cannot write x: full", path: "x")))
        #expect(objects[0]["status"] as? String == "failed" && objects[0]["code"] as? String == "recording")
        #expect(objects[0]["path"] as? String == "x" && objects[0]["message"] as? String == "cannot write x: full")
    }

    @Test func progressAtMostFourTimesASecondAndAlwaysAtTheEnd() throws {
        var writer = PlayEventJSON()
        let progress = AudioStreamerProgress(position: 1.23456, duration: nil, buffered: 2, bitRate: 128_000, bytesReceived: 99)
        let first = try Self.objects(&writer, .progress(progress), now: 0)
        #expect(first.count == 1)
        #expect(first[0]["position"] as? Double == 1.235 && first[0]["buffered"] as? Double == 2)
        #expect(first[0]["bitrate"] as? Double == 128 && first[0]["received"] as? Int == 99 && first[0]["duration"] == nil)
        // Every 100 ms for 3 s: 4 lines in every second, never 5 within one.
        var times: [Int64] = [0]
        for step in 1...30 {
            let now = Int64(step) * 100_000_000
            if !writer.lines(for: .progress(progress), now: now).isEmpty { times.append(now) }
        }
        #expect(times.count == 13)  // at 0, 0.1, 0.2, 0.3, then 1.0 ..., and 3.0
        for index in 4..<times.count { #expect(times[index] - times[index - 4] >= 1_000_000_000) }
        // The last progress, too soon after others, is written just before `done`.
        var last = progress
        last.position = 3.5
        #expect(writer.lines(for: .progress(last), now: 3_000_000_001).isEmpty)
        let end = try Self.objects(&writer, .stateChanged(.done), now: 3_000_000_002)
        #expect(end.map { $0["event"] as? String } == ["progress", "state"])
        #expect(end[0]["position"] as? Double == 3.5 && end[1]["state"] as? String == "done")
    }

    @Test func escapesWhatJSONNeeds() {
        #expect(JSONLine.quoted("a\"b\\c\u{0}\u{1F}\t\r\né") == "\"a\\\"b\\\\c\\u0000\\u001f\\t\\r\\né\"")
        var line = JSONLine(event: "x")
        line.add("n", Double.nan)
        line.add("none", nil as String?)
        line.add("d", 0.5)
        #expect(line.line == "{\"event\":\"x\",\"d\":0.5}")
    }
}
