#if canImport(Glibc)
import Glibc
#endif

/// Joins the downloaded resources of an `HLSDownloadPlan` into one file, piece after piece:
/// MPEG-TS segments one after the other (a TS file), an init section followed by its fragments
/// (a fragmented MP4 file), packed audio concatenated. AES-128 pieces are decrypted. A packed
/// audio segment's leading ID3 tag (its timestamp) is kept for the first segment only: later
/// ones would sit inside the audio stream. Blocking: call it on a thread of its own. Memory is
/// one 256 KiB buffer and its plain twin, whatever the size.
///
/// Fails with `.disk` for a file it cannot open, read or write, and `.invalidStream` for a
/// resource that does not fit the plan (a byte range past its end, a key that is not 16
/// bytes, a segment that does not decrypt).
enum HLSJoiner {
    private static let chunkSize = 256 << 10

    /// Writes the pieces of `plan` to a new file at `output` (replacing one there), reading
    /// resource `i` from `path(i)`, and syncs it. Returns its size.
    static func join(_ plan: HLSDownloadPlan, path: (Int) -> String, to output: String) throws(DownloadError) -> Int64 {
        let out = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard out >= 0 else { throw FileSystem.error("cannot create \(output)", path: output) }
        defer { close(out) }
        var writer = Writer(fd: out, path: output)
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        var plain: [UInt8] = []
        plain.reserveCapacity(chunkSize + 32)
        var keys: [Int: [UInt8]] = [:]
        var segmentsWritten = 0
        for piece in plan.pieces {
            let file = path(piece.resource)
            let fd = open(file, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw FileSystem.error("cannot open the downloaded \(plan.describe(piece)) at \(file)", path: file) }
            defer { close(fd) }
            var info = stat()
            guard fstat(fd, &info) == 0 else { throw FileSystem.error("cannot read \(file)", path: file) }
            let start = piece.offset ?? 0
            let length = piece.length ?? (Int64(info.st_size) - start)
            guard start + length <= Int64(info.st_size) else {
                throw DownloadError(
                    .invalidStream, "the byte range \(length)@\(start) of \(plan.describe(piece)) is past its end (\(info.st_size) bytes)",
                    url: plan.resources[piece.resource].url)
            }
            var decryptor: HLSDecryptor?
            if let decryption = piece.decryption {
                if keys[decryption.key] == nil { keys[decryption.key] = try readKey(plan, decryption.key, path: path(decryption.key)) }
                do throws(HLSDecryptor.Failure) {
                    decryptor = try HLSDecryptor(key: keys[decryption.key]!, iv: decryption.iv)
                } catch {
                    throw DownloadError(
                        .invalidStream, "\(plan.describe(piece)): \(error.message)", url: plan.resources[piece.resource].url)
                }
            }
            // A leading ID3 tag is dropped from every segment but the first.
            var checkTag = piece.isSegment && segmentsWritten > 0
            var offset = start
            while offset < start + length {
                let want = Int(min(Int64(chunkSize), start + length - offset))
                let got = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, want, off_t(offset)) }
                guard got > 0 else { throw FileSystem.error("cannot read \(file)", path: file) }
                offset += Int64(got)
                if let decryptor {
                    plain.removeAll(keepingCapacity: true)
                    buffer.withUnsafeBytes { decryptor.decrypt(UnsafeRawBufferPointer(rebasing: $0.prefix(got)), into: &plain) }
                    if offset == start + length {
                        do throws(HLSDecryptor.Failure) {
                            plain += try decryptor.finish()
                        } catch {
                            throw DownloadError(
                                .invalidStream, "\(plan.describe(piece)): \(error.message)", url: plan.resources[piece.resource].url)
                        }
                    }
                    try writer.write(plain, count: plain.count, checkTag: &checkTag)
                } else {
                    try writer.write(buffer, count: got, checkTag: &checkTag)
                }
            }
            if piece.isSegment { segmentsWritten += 1 }
        }
        guard fsync(out) == 0 else { throw FileSystem.error("cannot sync \(output)", path: output) }
        return writer.written
    }

    /// The size of an ID3v2 tag at the start of `bytes` (header, body and footer), or nil when
    /// they do not start with one.
    static func leadingTagSize(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count >= 10, bytes[0] == UInt8(ascii: "I"), bytes[1] == UInt8(ascii: "D"), bytes[2] == UInt8(ascii: "3"),
            bytes[3] != 0xFF, bytes[4] != 0xFF, (6..<10).allSatisfy({ bytes[$0] < 0x80 })
        else { return nil }
        let body = (6..<10).reduce(0) { $0 << 7 | Int(bytes[$1]) }
        let footer = bytes[5] & 0x10 != 0 ? 10 : 0
        return 10 + body + footer
    }

    /// The output file, with the bytes still to drop from the current piece.
    private struct Writer {
        let fd: Int32
        let path: String
        var written: Int64 = 0
        var skip = 0

        /// Writes `count` bytes of `bytes`; first, when `checkTag`, drops a leading ID3 tag.
        mutating func write(_ bytes: [UInt8], count: Int, checkTag: inout Bool) throws(DownloadError) {
            var failed = false
            bytes.withUnsafeBytes { raw in
                var rest = UnsafeRawBufferPointer(rebasing: raw.prefix(count))
                if checkTag, !rest.isEmpty {
                    checkTag = false
                    skip = HLSJoiner.leadingTagSize(rest) ?? 0
                }
                let dropped = min(skip, rest.count)
                skip -= dropped
                rest = UnsafeRawBufferPointer(rebasing: rest.dropFirst(dropped))
                while !rest.isEmpty {
                    let done = Glibc.write(fd, rest.baseAddress, rest.count)
                    if done < 0, errno == EINTR { continue }
                    guard done > 0 else {
                        failed = true
                        return
                    }
                    written += Int64(done)
                    rest = UnsafeRawBufferPointer(rebasing: rest.dropFirst(done))
                }
            }
            if failed { throw FileSystem.error("cannot write \(path)", path: path) }
        }
    }

    private static func readKey(_ plan: HLSDownloadPlan, _ index: Int, path: String) throws(DownloadError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystem.error("cannot open the downloaded \(plan.describe(resource: index)) at \(path)", path: path) }
        defer { close(fd) }
        var key = [UInt8](repeating: 0, count: 17)
        let count = key.withUnsafeMutableBytes { read(fd, $0.baseAddress, 17) }
        guard count == 16 else {
            throw DownloadError(
                .invalidStream, "the \(plan.describe(resource: index)) is not 16 bytes long: not an AES-128 key",
                url: plan.resources[index].url)
        }
        return Array(key.prefix(16))
    }
}
