#if canImport(Glibc)
import Glibc
#endif

/// The folder `FILE.hls.part` where an HLS download keeps each resource (segment file, init
/// section, key) as a file of its own, named by its index in the plan (`0`, `1` ...), with its
/// own `.part` file and resume records while it downloads: an interrupted run resumes each
/// unfinished one and fetches no finished one again. The file `plan` records the media
/// playlist's URL and its resources' (`record(of:)`): a run that finds another record there
/// empties the folder first, so that two versions of a stream never mix. Blocking: call it on
/// a thread of its own.
struct HLSPartFolder: Sendable {
    /// The folder's path.
    let path: String

    /// The part folder of the output `output`.
    init(output: String) {
        path = output + ".hls.part"
    }

    /// The file of resource `index`.
    func file(_ index: Int) -> String { "\(path)/\(index)" }

    /// Where a playlist is fetched to, before it is read.
    var playlistFile: String { path + "/playlist.m3u8" }

    /// Where the join writes, before the file is renamed to the output.
    var joinedFile: String { path + "/joined" }

    /// Makes the folder; true when this call made it (false: it was there).
    func make() throws(DownloadError) -> Bool {
        if mkdir(path, 0o755) == 0 { return true }
        guard errno == EEXIST else { throw FileSystem.error("cannot make the folder \(path)", path: path) }
        return false
    }

    /// What a plan file holds: the URLs without their passwords (the folder holds no secret),
    /// the media playlist's and then each resource's, one a line.
    static func record(of plan: HLSDownloadPlan) -> [UInt8] {
        ([plan.playlistURL] + plan.resources.map(\.url)).flatMap { Array(($0.redactingLogins + "\n").utf8) }
    }

    /// Empties the folder when its files were fetched for another plan than `plan` (or when
    /// not `resuming`), and records `plan`'s there (readable by its owner only). True when it
    /// held the files of another plan.
    func prepare(for plan: HLSDownloadPlan, resuming: Bool) -> Bool {
        let record = Self.record(of: plan)
        let recordPath = path + "/plan"
        let old = Self.read(recordPath)
        if old == record, resuming { return false }
        remove(keepingFolder: true)
        let fd = open(recordPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        if fd >= 0 {
            _ = record.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            fsync(fd)
            close(fd)
        }
        return old != nil && old != record
    }

    /// The sizes of the resources already fetched, by index.
    func fetched(of plan: HLSDownloadPlan) -> [Int: Int64] {
        var sizes: [Int: Int64] = [:]
        for index in plan.resources.indices {
            if let size = FileSystem.size(of: file(index)) { sizes[index] = size }
        }
        return sizes
    }

    /// Gives the joined file the name `output`: without `replacing`, only if nothing has it
    /// (else `.exists`).
    func place(at output: String, replacing: Bool) throws(DownloadError) {
        if replacing {
            guard rename(joinedFile, output) == 0 else { throw FileSystem.error("cannot name the joined file \(output)", path: output) }
            return
        }
        guard link(joinedFile, output) == 0 else { throw FileSystem.error("cannot name the joined file \(output)", path: output) }
        unlink(joinedFile)
    }

    /// Removes the files in the folder (it holds no folders), and the folder unless `keepingFolder`.
    func remove(keepingFolder: Bool = false) {
        if let directory = opendir(path) {
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
                if name != ".", name != ".." { unlink(path + "/" + name) }
            }
            closedir(directory)
        }
        if !keepingFolder { rmdir(path) }
    }

    /// The bytes of a small file, or nil.
    static func read(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { return bytes }
            bytes += chunk.prefix(count)
        }
    }
}
