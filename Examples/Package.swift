// swift-tools-version:6.0
// Examples of the Slipstream libraries as a separate package uses them (by path), built in CI
// (scripts/examples.sh) so that they, and the README's "Using the library", cannot rot; and
// tests of the libraries as such a package meets them (Tests/LibraryUseTests).
import PackageDescription

let package = Package(
    name: "SlipstreamExamples",
    dependencies: [.package(name: "Slipstream", path: "..")],
    targets: [
        .executableTarget(
            name: "DownloadFile",
            dependencies: [.product(name: "SlipstreamDownload", package: "Slipstream")]
        ),
        .executableTarget(
            name: "DownloadMany",
            dependencies: [.product(name: "SlipstreamDownload", package: "Slipstream")]
        ),
        .executableTarget(
            name: "DownloadHLS",
            dependencies: [.product(name: "SlipstreamDownload", package: "Slipstream")]
        ),
        .executableTarget(
            name: "FetchIfChanged",
            dependencies: [
                .product(name: "SlipstreamDownload", package: "Slipstream"),
                .product(name: "SlipstreamHTTP", package: "Slipstream"),
            ]
        ),
        .executableTarget(
            name: "FetchOnThread",
            dependencies: [.product(name: "SlipstreamHTTP", package: "Slipstream")]
        ),
        .executableTarget(
            name: "ListenWhileDownloading",
            dependencies: [
                .product(name: "SlipstreamAudio", package: "Slipstream"),
                .product(name: "SlipstreamDownload", package: "Slipstream"),
            ]
        ),
        .executableTarget(
            name: "RunDaemon",
            dependencies: [.product(name: "SlipstreamDaemon", package: "Slipstream")]
        ),
        .executableTarget(
            name: "PlayStream",
            dependencies: [.product(name: "SlipstreamAudio", package: "Slipstream")]
        ),
        .executableTarget(
            name: "RecordStation",
            dependencies: [.product(name: "SlipstreamAudio", package: "Slipstream")]
        ),
        // The libraries as a program meets them, through their public API only, against the
        // loopback services scripts/test.sh starts (scripts/examples.sh runs them).
        .testTarget(
            name: "LibraryUseTests",
            dependencies: [
                .product(name: "SlipstreamDownload", package: "Slipstream"),
                .product(name: "SlipstreamAudio", package: "Slipstream"),
                .product(name: "SlipstreamHTTP", package: "Slipstream"),
                .product(name: "SlipstreamDaemon", package: "Slipstream"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
