import SlipstreamAudio
import SlipstreamDownload
import SlipstreamHTTP

/// The documented exit statuses of `slipstream`.
enum ExitStatus: Int32 {
    /// Everything worked.
    case success = 0
    /// A failure with no more specific status.
    case failure = 1
    /// Bad arguments, or a URL that is malformed or not http, https, ftp, ftps or sftp.
    case usage = 2
    /// The network failed: resolve, connect, TLS, timeout, connection lost.
    case network = 3
    /// The server answered with an error status, or broke its range answers.
    case http = 4
    /// A file or disk failure: bad output path, no space, write error, a file that cannot be read.
    case disk = 5
    /// The input is not audio in a supported format (MP3/MPEG audio, AAC in ADTS or MP4,
    /// FLAC, Ogg Vorbis/Opus/FLAC, PCM WAV/AIFF/CAF), or most of its frames could not be
    /// decoded (`play`: frames whose headers are there and whose contents are not audio).
    case notAudio = 6
    /// The finished file does not have the checksum given with `--checksum`; it stays `FILE.part`.
    case checksum = 7
    /// The audio output (device, sound server, WAV file) or the decoder failed.
    case audio = 8
    /// The file is larger than `--max-filesize` (nothing of it kept).
    case tooLarge = 9
    /// `-o -`: the reader of standard output closed it before the end (as `| head` does); the
    /// status of a program stopped by SIGPIPE, without a message.
    case outputClosed = 141
    /// Stopped by SIGINT (Ctrl-C); the download can be resumed.
    case interrupted = 130
    /// Stopped by SIGTERM; the download can be resumed.
    case terminated = 143

    init(_ error: DownloadError) {
        switch error.code {
        case .invalidURL: self = .usage
        case .network: self = .network
        case .httpStatus, .rangeNotHonoured: self = .http
        case .output, .exists, .noSpace, .disk: self = .disk
        case .checksum: self = .checksum
        case .tooLarge: self = .tooLarge
        case .outputClosed: self = .outputClosed
        case .invalidStream, .liveStream: self = .notAudio
        default: self = .failure
        }
    }

    /// The status for a failed transfer.
    init(_ error: HTTPError) {
        switch error.code {
        case .malformedURL, .unsupportedScheme: self = .usage
        case .httpStatus, .rangeNotHonoured, .invalidResponse, .tooManyRedirects: self = .http
        case .cancelled: self = .failure
        default: self = .network
        }
    }

    /// The status for a failed `slipstream info`.
    init(_ error: AudioInfoError) {
        switch error.code {
        case .invalidURL: self = .usage
        case .httpStatus, .rangeNotHonoured: self = .http
        case .network: self = (error.underlying as? HTTPError).map(ExitStatus.init) ?? .network
        case .file: self = .disk
        case .notAudio: self = .notAudio
        default: self = .failure
        }
    }

    /// The status for playback that stopped with an error.
    init(_ error: AudioStreamerError) {
        switch error.code {
        case .network where [.malformedURL, .unsupportedScheme].contains((error.underlying as? HTTPError)?.code): self = .usage
        case .network, .timedOut: self = .network
        case .httpStatus, .rangeNotHonoured: self = .http
        case .file: self = .disk
        case .unsupportedFormat, .noAudioData, .undecodable: self = .notAudio
        case .decoder, .output: self = .audio
        default: self = .failure
        }
    }
}
