// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Slipstream",
    products: [
        .library(name: "SlipstreamHTTP", targets: ["SlipstreamHTTP"]),
        .library(name: "SlipstreamDownload", targets: ["SlipstreamDownload"]),
        .library(name: "SlipstreamMedia", targets: ["SlipstreamMedia"]),
        .library(name: "SlipstreamAudio", targets: ["SlipstreamAudio"]),
        .library(name: "SlipstreamDaemon", targets: ["SlipstreamDaemon"]),
        .executable(name: "slipstream", targets: ["slipstream"]),
    ],
    targets: [
        // Headers only: libcurl is loaded on first use (see shim.h). No pkgConfig, whose flags
        // link it.
        .systemLibrary(
            name: "CCurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // Headers only, as for the decoders' libraries below but libmpg123 (MP3, what most runs
        // play): each is loaded on first use (see its shim.h). No pkgConfig, whose flags link it.
        .systemLibrary(name: "CCrypto", providers: [.apt(["libssl-dev"])]),
        // libc's renameat2 and O_TMPFILE (glibc hides them without _GNU_SOURCE).
        .systemLibrary(name: "CFileSystem"),
        // Carry-less multiply (x86-64's PCLMULQDQ) for the CRCs of FLAC frames and Ogg pages.
        .systemLibrary(name: "CCarrylessCRC"),
        .systemLibrary(
            name: "CMPG123",
            pkgConfig: "libmpg123",
            providers: [.apt(["libmpg123-dev"])]
        ),
        .systemLibrary(name: "CFAAD", providers: [.apt(["libfaad-dev"])]),
        .systemLibrary(name: "CFLAC", providers: [.apt(["libflac-dev"])]),
        .systemLibrary(name: "CVorbis", providers: [.apt(["libvorbis-dev"])]),
        .systemLibrary(name: "COpus", providers: [.apt(["libopus-dev"])]),
        // The resampler for outputs that keep one format when a stream's format changes. Headers
        // only: the library is loaded on first use (see shim.h); no pkgConfig, whose flags link it.
        .systemLibrary(
            name: "CSoxr",
            providers: [.apt(["libsoxr-dev"])]
        ),
        // Headers only: libasound is loaded on first use (see shim.h). No pkgConfig, whose flags
        // link it.
        .systemLibrary(
            name: "CALSA",
            providers: [.apt(["libasound2-dev"])]
        ),
        // Headers only: the libraries are loaded on first use (see shim.h). No pkgConfig:
        // libpulse-simple's .pc adds -pthread / -D_REENTRANT, which SwiftPM warns about.
        .systemLibrary(
            name: "CPulse",
            providers: [.apt(["libpulse-dev"])]
        ),
        // Package-internal plumbing of the libraries: the event stream, the I/O thread, the
        // monotonic clock, byte parsing helpers and the version. Not a product of its own: each
        // library re-exports its public part (the event stream, the version).
        .target(name: "SlipstreamCore"),
        .target(name: "SlipstreamHTTP", dependencies: ["SlipstreamCore", "CCurl"]),
        // Downloads, HLS streams' included (planned by the media module, decrypted with CCrypto).
        .target(
            name: "SlipstreamDownload", dependencies: ["SlipstreamCore", "SlipstreamHTTP", "SlipstreamMedia", "CCrypto", "CFileSystem"]),
        // The pure format code: container parsers, tags, seek tables, playlists (M3U, PLS, XSPF,
        // HLS), the MPEG-TS demuxer, ICY blocks and the recording writers' framing. Bytes in,
        // values out: no network, no codec library, no audio output.
        .target(name: "SlipstreamMedia", dependencies: ["SlipstreamCore", "CCarrylessCRC"]),
        // SlipstreamDownload: for the AES-128 decryptor of HLS segments, which HLS downloads share.
        .target(
            name: "SlipstreamAudio",
            dependencies: [
                "SlipstreamCore", "SlipstreamMedia", "SlipstreamHTTP", "SlipstreamDownload", "CMPG123", "CFAAD", "CFLAC", "CVorbis",
                "COpus", "CSoxr", "CALSA", "CPulse",
            ]
        ),
        // Headers only: libwebsockets is loaded on first use (see shim.h), by the daemon alone.
        .systemLibrary(name: "CWebSockets", providers: [.apt(["libwebsockets-dev"])]),
        // The service: aria2's JSON-RPC over HTTP and WebSocket, the session and the page at /,
        // on one download queue.
        .target(
            name: "SlipstreamDaemon",
            dependencies: ["SlipstreamCore", "SlipstreamHTTP", "SlipstreamDownload", "CWebSockets"]),
        .executableTarget(
            name: "slipstream",
            dependencies: ["SlipstreamCore", "SlipstreamDownload", "SlipstreamHTTP", "SlipstreamAudio", "SlipstreamDaemon"]
        ),
        // Shared by the test targets: a loopback HTTP server that misbehaves on demand,
        // the nginx the test script starts, and helpers for test files.
        .target(name: "TestSupport", dependencies: ["SlipstreamCore"], path: "Tests/TestSupport"),
        // Counts the heap allocations of each thread in the test binary, for tests that check
        // a hot path allocates nothing.
        .target(name: "CAllocationCounter", path: "Tests/CAllocationCounter"),
        // Builders of small synthetic streams and a recorder of a parser's output, for the tests
        // of the media module and of the player.
        .target(name: "MediaTestSupport", dependencies: ["SlipstreamMedia"], path: "Tests/MediaTestSupport"),
        .testTarget(name: "SlipstreamCoreTests", dependencies: ["SlipstreamCore"]),
        .testTarget(name: "SlipstreamHTTPTests", dependencies: ["SlipstreamHTTP", "TestSupport"]),
        .testTarget(name: "SlipstreamDownloadTests", dependencies: ["SlipstreamDownload", "TestSupport"]),
        .testTarget(name: "SlipstreamMediaTests", dependencies: ["SlipstreamMedia", "MediaTestSupport", "TestSupport"]),
        .testTarget(
            name: "SlipstreamAudioTests", dependencies: ["SlipstreamAudio", "MediaTestSupport", "TestSupport", "CAllocationCounter"]),
        .testTarget(name: "SlipstreamDaemonTests", dependencies: ["SlipstreamDaemon", "TestSupport"]),
        .testTarget(name: "SlipstreamCLITests", dependencies: ["slipstream", "SlipstreamCore", "TestSupport"]),
        // Downloads and playback on one engine at once.
        .testTarget(
            name: "SlipstreamIntegrationTests",
            dependencies: ["SlipstreamDownload", "SlipstreamAudio", "TestSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// The fuzz targets (scripts/fuzz.sh): one libFuzzer executable per parser of untrusted bytes.
// They live in this package so that they build against its real module graph and see its
// `package` declarations (and, built with -enable-testing, its internal ones). Declared only
// when SLIPSTREAM_FUZZ=1: they link only with -sanitize=fuzzer, so a normal build never sees them.
if Context.environment["SLIPSTREAM_FUZZ"] == "1" {
    package.targets += [
        .target(name: "CLibFuzzer", path: "Fuzz/CLibFuzzer"),
        .target(name: "FuzzSupport", dependencies: ["CLibFuzzer"], path: "Fuzz/FuzzSupport"),
        .executableTarget(name: "AudioParserFuzzer", dependencies: ["SlipstreamMedia", "FuzzSupport"], path: "Fuzz/AudioParserFuzzer"),
        .executableTarget(name: "MP4ParserFuzzer", dependencies: ["SlipstreamMedia", "FuzzSupport"], path: "Fuzz/MP4ParserFuzzer"),
        .executableTarget(
            name: "ICYMetadataFuzzer", dependencies: ["SlipstreamMedia", "FuzzSupport"], path: "Fuzz/ICYMetadataFuzzer"),
        .executableTarget(
            name: "ResumeRecordFuzzer", dependencies: ["SlipstreamDownload", "FuzzSupport"], path: "Fuzz/ResumeRecordFuzzer"),
        .executableTarget(
            name: "DownloadListFuzzer", dependencies: ["SlipstreamDownload", "FuzzSupport"], path: "Fuzz/DownloadListFuzzer"),
        .executableTarget(
            name: "MetalinkFuzzer", dependencies: ["SlipstreamDownload", "FuzzSupport"], path: "Fuzz/MetalinkFuzzer"),
        // These two also feed the packets the parser finds to the real decoders (libFLAC,
        // libvorbis, libopus), whose frame counts must match the parser's: they link the player.
        .executableTarget(
            name: "FLACParserFuzzer", dependencies: ["SlipstreamMedia", "SlipstreamAudio", "FuzzSupport"],
            path: "Fuzz/FLACParserFuzzer"),
        .executableTarget(
            name: "OggParserFuzzer", dependencies: ["SlipstreamMedia", "SlipstreamAudio", "FuzzSupport"],
            path: "Fuzz/OggParserFuzzer"),
        .executableTarget(name: "PlaylistFuzzer", dependencies: ["SlipstreamMedia", "FuzzSupport"], path: "Fuzz/PlaylistFuzzer"),
        .executableTarget(
            name: "TransportStreamFuzzer", dependencies: ["SlipstreamMedia", "FuzzSupport"], path: "Fuzz/TransportStreamFuzzer"),
        .executableTarget(
            name: "ExternalTextFuzzer", dependencies: ["SlipstreamCore", "FuzzSupport"], path: "Fuzz/ExternalTextFuzzer"),
        .executableTarget(name: "RPCRequestFuzzer", dependencies: ["SlipstreamDaemon", "FuzzSupport"], path: "Fuzz/RPCRequestFuzzer"),
        .executableTarget(
            name: "WebSocketFramingFuzzer", dependencies: ["SlipstreamDaemon", "FuzzSupport"], path: "Fuzz/WebSocketFramingFuzzer"),
        .executableTarget(
            name: "ResponseHeadFuzzer",
            dependencies: ["SlipstreamHTTP", "SlipstreamDownload", "FuzzSupport"],
            path: "Fuzz/ResponseHeadFuzzer"
        ),
    ]
}
