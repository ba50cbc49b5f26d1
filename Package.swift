// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "reqd",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "reqd", targets: ["reqd"]),
        .executable(name: "reqd-client", targets: ["reqd-client"]),
        .executable(name: "reqd-bench", targets: ["reqd-bench"]),
        .library(name: "ReqdCore", targets: ["ReqdCore"]),
        .library(name: "ReqdProtocol", targets: ["ReqdProtocol"]),
        .library(name: "ReqdDaemon", targets: ["ReqdDaemon"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/LebJe/TOMLKit", exact: "0.6.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(name: "ReqdCalendar"),
        .target(name: "ReqdProtocol", dependencies: ["ReqdCalendar"]),
        .target(name: "ReqdCore", dependencies: ["ReqdProtocol", "ReqdCalendar"]),
        .target(
            name: "ReqdDaemon",
            dependencies: [
                "ReqdCore", "ReqdProtocol", "ReqdCalendar", "CSystemd", "CSQLite",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .target(
            name: "ReqdTestSupport",
            dependencies: [
                "ReqdCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            ],
            path: "Tests/Support/ReqdTestSupport"
        ),
        .target(name: "ReqdStoreTestSupport", dependencies: ["ReqdDaemon", "ReqdCore"], path: "Tests/Support/ReqdStoreTestSupport"),
        .executableTarget(
            name: "reqd",
            dependencies: [
                "ReqdDaemon",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "reqd-client",
            dependencies: [
                "ReqdProtocol", "ReqdCalendar",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "reqd-bench",
            dependencies: [
                "ReqdProtocol", "ReqdCore", "ReqdDaemon", "ReqdTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "bench/Sources/reqd-bench"
        ),
        .testTarget(
            name: "ReqdCoreTests",
            dependencies: [
                "ReqdCore", "ReqdProtocol", "ReqdCalendar", "ReqdDaemon", "ReqdTestSupport", "ReqdStoreTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(name: "ReqdProtocolTests", dependencies: ["ReqdProtocol", "ReqdCore", "ReqdTestSupport"]),
        .testTarget(name: "ReqdCalendarTests", dependencies: ["ReqdCalendar"]),
        .testTarget(
            name: "ReqdDaemonTests",
            dependencies: [
                "ReqdDaemon", "ReqdCore", "ReqdProtocol", "ReqdTestSupport", "ReqdStoreTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOTestUtils", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "ReqdProtocol", "ReqdTestSupport", "reqd", "reqd-client", .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
