// The libFuzzer target for the resume records beside a `.part` file: `ControlFile`'s decoding
// (a record is untrusted bytes: damaged, cut short, or another program's) and `ResumeStore`'s
// choice between the durable and the live record. A record is CRC-guarded, so a mutated input
// would almost never get past the checksum: each record is tried as it is and with its
// checksum made right, which lets the fuzzer into the fields behind it.

import FuzzSupport
@testable import SlipstreamDownload

#if canImport(Glibc)
import Glibc
#endif

/// One input: a flags byte, a big-endian UInt16 length, the durable record (that many bytes,
/// or what there is), then the live record (the rest). Flags: bit 0 writes the durable file,
/// bit 1 the live one, bit 2 gives the live record this boot's id, bit 3 leaves the checksums
/// as they are.
func fuzzResumeRecord(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = fuzzInput(data, size)
    guard input.count >= 3 else { return 0 }
    let flags = input[0]
    let split = min(3 + (Int(input[1]) << 8 | Int(input[2])), input.count)
    var durable = Array(input[3..<split])
    var live = Array(input[split...])

    for bytes in [durable, live] {
        checkDecoding(bytes)
    }
    if flags & 4 != 0, live.count >= 26 {
        live.replaceSubrange(10..<26, with: ResumeStore.bootID)
    }
    if flags & 8 == 0 {
        fixChecksum(&durable)
        fixChecksum(&live)
        checkDecoding(durable)
        checkDecoding(live)
    }
    checkChoice(durable: flags & 1 != 0 ? durable : nil, live: flags & 2 != 0 ? live : nil)
    return 0
}

/// The record's last 4 bytes set to the CRC-32 of the others, as a writer would.
func fixChecksum(_ bytes: inout [UInt8]) {
    guard bytes.count >= 4 else { return }
    let crc = CRC32.checksum(bytes[..<(bytes.count - 4)])
    for index in 0..<4 { bytes[bytes.count - 4 + index] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * index)) }
}

/// A record that decodes is exactly what encoding it gives back, and makes sense: its pieces
/// cover its size, its written ranges lie inside the file on piece boundaries, and recording
/// them again changes nothing. One that does not decode says why.
func checkDecoding(_ bytes: [UInt8]) {
    let record: ControlFile
    do {
        record = try ControlFile(decoding: bytes)
    } catch {
        require(!error.description.isEmpty, "a decoding error without a reason")
        return
    }
    require(record.encoded() == bytes, "a decoded record encodes to other bytes")
    require(record.size >= 0 && record.pieceSize > 0 && record.bootID.count == 16, "impossible fields: \(record)")
    require(Int64(record.bitmap.count) == (record.pieceCount + 7) / 8, "the bitmap does not fit \(record.pieceCount) pieces")
    let written = record.writtenRanges
    for range in written.ranges {
        require(
            range.lowerBound >= 0 && range.upperBound <= record.size && range.lowerBound % record.pieceSize == 0,
            "written range \(range) of a \(record.size)-byte file in \(record.pieceSize)-byte pieces")
    }
    var again = record
    again.record(written)
    require(again.writtenRanges == written, "recording the written ranges again changed them")
}

/// What `ResumeStore.load` makes of the two files (absent when nil) is what the rules say:
/// the live record only when it decodes, was written in this boot and describes the same remote
/// file as the durable record (when that one decodes); otherwise the durable one.
func checkChoice(durable: [UInt8]?, live: [UInt8]?) {
    let store = ResumeStore(partPath: ResumeFiles.partPath)
    for (path, bytes) in [(store.durablePath, durable), (store.livePath, live)] {
        unlink(path)
        if let bytes { ResumeFiles.write(bytes, to: path) }
    }
    let durableRecord = durable.flatMap { try? ControlFile(decoding: $0) }
    let liveRecord = live.flatMap { try? ControlFile(decoding: $0) }
    switch store.load() {
    case .nothing:
        require(durable == nil && live == nil, "nothing found beside existing records")
    case .damaged(let reason):
        require(!reason.isEmpty, "damaged without a reason")
        require(
            durable != nil && durableRecord == nil || durable == nil && live != nil,
            "a usable durable record was called damaged: \(reason)")
    case .record(let record):
        if let liveRecord, record == liveRecord, liveRecord.bootID == ResumeStore.bootID {
            // (A live record of this boot stands on its own beside a damaged durable one.)
            if let durableRecord {
                require(
                    durableRecord.size == record.size && durableRecord.etag == record.etag
                        && durableRecord.lastModified == record.lastModified && durableRecord.pieceSize == record.pieceSize,
                    "a live record was trusted over a durable one of another file")
            }
        } else {
            require(record == durableRecord, "the record found is neither the durable one nor a trusted live one")
        }
    }
}

/// Where the records are written: a folder of this process's own under the temporary folder.
enum ResumeFiles {
    static let partPath: String = {
        let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        let folder = base + "/slipstream-fuzz-resume-\(getpid())"
        mkdir(folder, 0o700)
        atexit {
            let store = ResumeStore(partPath: ResumeFiles.partPath)
            unlink(store.durablePath)
            unlink(store.livePath)
            rmdir(String(ResumeFiles.partPath.dropLast("/file.part".count)))
        }
        return folder + "/file.part"
    }()

    static func write(_ bytes: [UInt8], to path: String) {
        guard let file = fopen(path, "wb") else { fatalError("cannot write \(path)") }
        require(fwrite(bytes, 1, bytes.count, file) == bytes.count && fclose(file) == 0, "cannot write \(path)")
    }
}

/// First inputs: a few real records, alone and as a durable and live pair.
func resumeRecordSeeds() -> [[UInt8]] {
    func input(flags: UInt8, _ durable: ControlFile, _ live: ControlFile?) -> [UInt8] {
        let first = durable.encoded()
        return [flags, UInt8(first.count >> 8), UInt8(first.count & 0xFF)] + first + (live?.encoded() ?? [])
    }
    var partial = ControlFile(
        url: "http://example.test/file.iso", size: 1_000_000, etag: "\"abc\"",
        lastModified: "Sun, 29 Nov 2026 15:23:04 GMT", pieceSize: 65_536)
    partial.record(ByteRanges([0..<200_000, 500_000..<1_000_000]))
    var further = partial
    further.record(ByteRanges([0..<1_000_000]))
    let empty = ControlFile(url: "https://mirror.test/a", size: 0, etag: nil, lastModified: nil)
    let odd = ControlFile(url: "http://h/ü", size: 12_345, etag: "W/\"x\"", lastModified: nil, pieceSize: 1000)
    return [
        input(flags: 1, partial, nil),
        input(flags: 3 | 4, partial, further),
        input(flags: 2 | 4, empty, odd),
        input(flags: 3, odd, partial),
    ]
}
