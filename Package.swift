// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "Retrace",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "Retrace", targets: ["Retrace"]),
    .library(name: "RetraceCBOR", targets: ["RetraceCBOR"]),
    .library(name: "RetraceTesting", targets: ["RetraceTesting"]),
    .library(name: "RetraceLog", targets: ["RetraceLog"]),
    .library(name: "RetraceCoordinator", targets: ["RetraceCoordinator"]),
    .library(name: "RetraceDebugger", targets: ["RetraceDebugger"]),
    .library(name: "RetraceCLI", targets: ["RetraceCLI"]),
    .library(name: "RetraceStudio", targets: ["RetraceStudio"]),
    .library(name: "RetraceLive", targets: ["RetraceLive"]),
    .executable(name: "retrace", targets: ["retrace"]),
    .executable(name: "retrace-demo", targets: ["retrace-demo"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
    .package(url: "https://github.com/pointfreeco/swift-identified-collections", from: "1.1.1"),
    .package(url: "https://github.com/pointfreeco/swift-custom-dump", from: "1.7.3"),
    .package(url: "https://github.com/pointfreeco/xctest-dynamic-overlay", from: "1.13.1"),
    .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/onevcat/Rainbow", from: "4.2.2"),
    // HMAC-SHA256 for keyed pseudonyms (CryptoKit on Apple platforms).
    .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
    // `swift package generate-documentation`: the DocC catalogs of Retrace, RetraceLog and
    // RetraceCoordinator. A command plugin, built only when that command runs.
    .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    // The HTTP server of Retrace Studio (`retrace serve`): sockets and async/await, no
    // SwiftNIO; only RetraceStudio and the `retrace` executable depend on it.
    .package(url: "https://github.com/swhitty/FlyingFox", from: "0.27.1"),
  ],
  targets: [
    // The CBOR codec (Codable, deterministic mode, hand-written conformances), XXH64 and
    // StateHash: what traces and state hashes are made of. `Retrace` re-exports it.
    .target(
      name: "RetraceCBOR",
      dependencies: [
        .product(name: "IdentifiedCollections", package: "swift-identified-collections")
      ]
    ),
    .target(
      name: "Retrace",
      dependencies: [
        "RetraceCBOR",
        .product(name: "DequeModule", package: "swift-collections"),
        .product(name: "IdentifiedCollections", package: "swift-identified-collections"),
        // Reports an error an effect throws and nothing handles, as TCA does.
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
      ]
    ),
    .systemLibrary(
      name: "CZstd",
      pkgConfig: "libzstd",
      providers: [.apt(["libzstd-dev"])]
    ),
    // CRC-32C with the CPU's CRC instructions, where it has them (RetraceLog falls back to
    // its own table-driven code).
    .target(name: "CRetraceCRC32C"),
    .target(
      name: "RetraceLog",
      dependencies: [
        "Retrace",
        "CZstd",
        "CRetraceCRC32C",
        .product(name: "Crypto", package: "swift-crypto"),
      ]
    ),
    .executableTarget(
      name: "retrace-crash-child",
      dependencies: ["Retrace", "RetraceLog", "RetraceExamples"]
    ),
    .target(
      name: "RetraceTesting",
      dependencies: [
        "Retrace",
        .product(name: "CustomDump", package: "swift-custom-dump"),
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
        // What makes a reported issue fail the test that runs it, under Swift Testing and
        // XCTest, with no other dependency in the app's test target.
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
      ]
    ),
    .target(
      name: "RetraceCoordinator",
      dependencies: [
        "Retrace",
        .product(name: "OrderedCollections", package: "swift-collections"),
      ]
    ),
    .target(
      name: "RetraceExamples",
      dependencies: [
        "Retrace",
        "RetraceCoordinator",
        .product(name: "IdentifiedCollections", package: "swift-identified-collections"),
      ]
    ),
    .target(
      name: "RetraceDebugger",
      dependencies: [
        "Retrace",
        "RetraceLog",
        .product(name: "CustomDump", package: "swift-custom-dump"),
      ]
    ),
    .target(
      name: "RetraceCLI",
      dependencies: [
        "RetraceDebugger",
        "RetraceLog",
        "RetraceCoordinator",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Rainbow", package: "Rainbow"),
      ]
    ),
    // Retrace Studio: `retrace serve`, a web UI over RetraceDebugger. Its own target, so
    // that an app that depends on the library or on RetraceCLI never builds the server.
    .target(
      name: "RetraceStudio",
      dependencies: [
        "RetraceCLI",
        "RetraceDebugger",
        "RetraceLog",
        "RetraceCoordinator",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "FlyingFox", package: "FlyingFox"),
        .product(name: "FlyingSocks", package: "FlyingFox"),
      ],
      resources: [.copy("Page")]
    ),
    .executableTarget(
      name: "retrace",
      dependencies: ["RetraceCLI", "RetraceStudio", "RetraceExamples"]
    ),
    // The app side of a live session: a store recorder that streams actions to Retrace
    // Studio over a WebSocket the app opens. FlyingSocks only (sockets and async/await):
    // no server code, no SwiftNIO, and no URLSession, whose WebSockets need a libcurl
    // built with them, which Linux distributions do not ship (docs/LIVE.md).
    .target(
      name: "RetraceLive",
      dependencies: [
        "Retrace",
        .product(name: "FlyingSocks", package: "FlyingFox"),
        // SHA-1 for the WebSocket handshake's accept check (CryptoKit on Apple platforms);
        // an app that records traces links it already (RetraceLog).
        .product(name: "Crypto", package: "swift-crypto"),
      ]
    ),
    // A demo app: a store of an example domain, driven by its workload generator, linked
    // live to a Studio.
    .executableTarget(
      name: "retrace-demo",
      dependencies: [
        "Retrace",
        "RetraceLive",
        "RetraceLog",
        "RetraceExamples",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    .testTarget(
      name: "RetraceCBORTests",
      dependencies: [
        "RetraceCBOR",
        .product(name: "PropertyBased", package: "swift-property-based"),
      ]
    ),
    .testTarget(
      name: "RetraceTests",
      dependencies: [
        "Retrace",
        "RetraceTesting",
        .product(name: "PropertyBased", package: "swift-property-based"),
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
      ]
    ),
    .testTarget(
      name: "RetraceExamplesTests",
      dependencies: [
        "RetraceExamples",
        "RetraceTesting",
        .product(name: "PropertyBased", package: "swift-property-based"),
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
      ]
    ),
    .testTarget(
      name: "RetraceCoordinatorTests",
      dependencies: [
        "RetraceCoordinator",
        "RetraceExamples",
        .product(name: "PropertyBased", package: "swift-property-based"),
      ]
    ),
    .testTarget(
      name: "RetraceLogTests",
      dependencies: [
        "RetraceLog",
        "retrace-crash-child",
        "RetraceExamples",
        .product(name: "PropertyBased", package: "swift-property-based"),
      ],
      exclude: ["read_trace.py"]
    ),
    // Sessions, domains and files that the debugger's, the CLI's and the Studio's tests share.
    .target(
      name: "RetraceTestSupport",
      dependencies: ["RetraceDebugger", "RetraceLog", "RetraceExamples"],
      path: "Tests/RetraceTestSupport"
    ),
    .testTarget(
      name: "RetraceDebuggerTests",
      dependencies: [
        "RetraceDebugger",
        "RetraceLog",
        "RetraceExamples",
        "RetraceTestSupport",
        .product(name: "CustomDump", package: "swift-custom-dump"),
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
        .product(name: "PropertyBased", package: "swift-property-based"),
      ]
    ),
    .testTarget(
      name: "RetraceCLITests",
      dependencies: [
        "RetraceCLI",
        "RetraceDebugger",
        "RetraceLog",
        "RetraceExamples",
        "RetraceTestSupport",
        "retrace",
        "retrace-crash-child",
        .product(name: "CustomDump", package: "swift-custom-dump"),
      ]
    ),
    .testTarget(
      name: "RetraceStudioTests",
      dependencies: [
        "RetraceStudio",
        "RetraceCLI",
        "RetraceDebugger",
        "RetraceExamples",
        "RetraceTestSupport",
        "retrace",
        "retrace-demo",
        .product(name: "FlyingFox", package: "FlyingFox"),
        .product(name: "FlyingSocks", package: "FlyingFox"),
      ]
    ),
    .testTarget(
      name: "RetraceLiveTests",
      dependencies: [
        "RetraceLive",
        "RetraceLog",
        "RetraceExamples",
        "retrace-demo",
        .product(name: "FlyingFox", package: "FlyingFox"),
        .product(name: "FlyingSocks", package: "FlyingFox"),
      ]
    ),
    .testTarget(
      name: "RetraceTestingTests",
      dependencies: [
        "Retrace",
        "RetraceTesting",
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
