// swift-tools-version: 6.1
import PackageDescription

// Retrace's package: the libraries an app links, the tools built on them, the examples and
// the tests. Each section below lists one layer's targets; docs/ARCHITECTURE.md draws the
// graph and says which module may import which.

// MARK: - Dependencies

/// The products of other packages that targets use, named once.
extension Target.Dependency {
  static let deque = product(name: "DequeModule", package: "swift-collections")
  static let orderedCollections = product(name: "OrderedCollections", package: "swift-collections")
  static let identifiedCollections = product(
    name: "IdentifiedCollections", package: "swift-identified-collections")
  static let customDump = product(name: "CustomDump", package: "swift-custom-dump")
  static let issueReporting = product(name: "IssueReporting", package: "xctest-dynamic-overlay")
  /// What makes a reported issue fail the test that runs it, under Swift Testing and XCTest.
  static let issueReportingTestSupport = product(
    name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay")
  static let propertyBased = product(name: "PropertyBased", package: "swift-property-based")
  static let argumentParser = product(name: "ArgumentParser", package: "swift-argument-parser")
  static let rainbow = product(name: "Rainbow", package: "Rainbow")
  /// HMAC-SHA256 for keyed pseudonyms, SHA-1 for the WebSocket handshake (CryptoKit on Apple
  /// platforms).
  static let crypto = product(name: "Crypto", package: "swift-crypto")
  static let flyingFox = product(name: "FlyingFox", package: "FlyingFox")
  static let flyingSocks = product(name: "FlyingSocks", package: "FlyingFox")
  /// Point-Free's dependency system, without its macros (swift-syntax is never built).
  static let dependencies = product(name: "Dependencies", package: "swift-dependencies")
  /// `AnyCasePath` and `CaseKeyPath`, without the `@CasePathable` macro.
  static let casePathsCore = product(name: "CasePathsCore", package: "swift-case-paths")
}

let dependencies: [Package.Dependency] = [
  .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
  .package(url: "https://github.com/pointfreeco/swift-identified-collections", from: "1.1.1"),
  .package(url: "https://github.com/pointfreeco/swift-custom-dump", from: "1.7.3"),
  .package(url: "https://github.com/pointfreeco/xctest-dynamic-overlay", from: "1.13.1"),
  .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
  .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
  .package(url: "https://github.com/onevcat/Rainbow", from: "4.2.2"),
  .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
  // `swift package generate-documentation`: the DocC catalogs of the library products
  // (scripts/ci/docs). A command plugin, built only when that command runs.
  .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
  // The HTTP server of Retrace Studio (`retrace serve`): sockets and async/await, no
  // SwiftNIO; only RetraceStudio, RetraceLive and the executables depend on it.
  .package(url: "https://github.com/swhitty/FlyingFox", from: "0.27.1"),
  // What an app's effects reach their clients and clocks through (RetraceDependencies),
  // with swift-clocks' clocks and the values TCA apps read from Foundation (`uuid`, `date`,
  // `calendar`, `locale`, `timeZone`...: its `Clocks` and `Foundation` traits, not
  // `CombineSchedulers`, so that combine-schedulers is not built, nor
  // `FoundationNetworking`, which links libcurl on Linux), and the case paths
  // TestStore's `receive` matches. Only their macro-free
  // products are used: SwiftPM resolves swift-syntax for them but never builds it.
  .package(
    url: "https://github.com/pointfreeco/swift-dependencies", from: "1.17.1",
    traits: ["Clocks", "Foundation"]),
  .package(url: "https://github.com/pointfreeco/swift-case-paths", from: "1.10.0"),
]

// MARK: - The store: what an app links

let store: [Target] = [
  // The CBOR codec (Codable, deterministic mode, hand-written conformances), XXH64 and
  // StateHash: what traces and state hashes are made of. `Retrace` re-exports it.
  .target(name: "RetraceCBOR", dependencies: [.identifiedCollections]),
  .target(
    name: "Retrace",
    dependencies: [
      "RetraceCBOR", .deque, .identifiedCollections, .orderedCollections,
      // Reports an error an effect throws and nothing handles, as TCA does.
      .issueReporting,
      // `ActionCase` from a case path or a case key path (the macro-free core).
      .casePathsCore,
    ]
  ),
  .target(
    name: "RetraceTesting",
    dependencies: [
      "Retrace", "RetraceDependencies", "RetraceCheck", .deque, .customDump, .issueReporting,
      .issueReportingTestSupport, .casePathsCore,
    ]
  ),
  .target(name: "RetraceCoordinator", dependencies: ["Retrace", .orderedCollections]),
  // The model checker: breadth-first search and random walks over a domain's exploration
  // actions, for `retrace check` and an app's own tests.
  .target(name: "RetraceCheck", dependencies: ["Retrace", "RetraceCBOR"]),
  // Dependencies and clocks for effects, as TCA apps reach them: swift-dependencies'
  // `@Dependency`, `withDependencies` and swift-clocks' clocks. A product of its own, so
  // that an app that uses only the store does not build them.
  .target(name: "RetraceDependencies", dependencies: ["Retrace", .dependencies]),
]

// MARK: - Recording sessions

let recording: [Target] = [
  .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),
  // CRC-32C with the CPU's CRC instructions, where it has them (RetraceLog falls back to
  // its own table-driven code).
  .target(name: "CRetraceCRC32C"),
  .target(name: "RetraceLog", dependencies: ["Retrace", "CZstd", "CRetraceCRC32C", .crypto]),
  // The live link's protocol (docs/LIVE.md): its messages, their one codec, its version
  // and the Studio's address, which the app side (RetraceLive), the Studio (RetraceStudio)
  // and their stand-ins in the tests and benchmarks share. CBOR only: no sockets.
  .target(name: "RetraceLiveProtocol", dependencies: ["RetraceCBOR"]),
  // The app side of a live session: a store recorder that streams actions to Retrace
  // Studio over a WebSocket the app opens. FlyingSocks only (sockets and async/await):
  // no server code, no SwiftNIO, and no URLSession, whose WebSockets need a libcurl
  // built with them, which Linux distributions do not ship (docs/LIVE.md).
  .target(
    name: "RetraceLive", dependencies: ["Retrace", "RetraceLiveProtocol", .flyingSocks, .crypto]),
]

// MARK: - The debugger: replay engine, CLI, Studio

let debugger: [Target] = [
  // One line on stderr, saying what the process was doing, when a Swift runtime error in a
  // domain's code stops `retrace` (a signal handler, which Swift cannot write).
  .target(name: "CRetraceTrap"),
  // The replay engine and the session layer every tool reads sessions through.
  .target(
    name: "RetraceDebugger",
    dependencies: ["Retrace", "RetraceLog", "RetraceCoordinator", "CRetraceTrap", .customDump]
  ),
  .target(
    name: "RetraceCLI",
    dependencies: [
      "RetraceDebugger", "RetraceCheck", "CRetraceTrap", "RetraceLog", "RetraceCoordinator",
      .argumentParser, .rainbow,
    ]
  ),
  // Retrace Studio: `retrace serve`, a web UI over RetraceDebugger. Its own target, so
  // that an app that depends on the library or on RetraceCLI never builds the server.
  .target(
    name: "RetraceStudio",
    dependencies: [
      "RetraceCLI", "RetraceDebugger", "RetraceLog", "RetraceCoordinator", "RetraceLiveProtocol",
      .argumentParser, .flyingFox, .flyingSocks,
    ],
    resources: [.copy("Page")]
  ),
]

// MARK: - Examples and executables

let examples: [Target] = [
  // The example domains, at the top of the repository rather than under Sources/: they are
  // not part of the library. A product only under a leading underscore (`_RetraceExamples`,
  // not API) so that the benchmark and fuzzing packages, which can use only another
  // package's products, link this one target instead of compiling its sources again.
  .target(
    name: "RetraceExamples",
    dependencies: [
      "Retrace", "RetraceCoordinator", "RetraceDependencies", .identifiedCollections,
      .casePathsCore,
    ],
    path: "Examples",
    exclude: ["Demo"]
  ),
  .executableTarget(
    name: "retrace", dependencies: ["RetraceCLI", "RetraceStudio", "RetraceExamples"],
    // Not Sources/retrace: on a case-insensitive file system (macOS's default) it would be
    // the same folder as Sources/Retrace, and the two Retrace.swift one file.
    path: "Sources/RetraceExecutable"),
  // A demo app: a store of an example domain, driven by its workload generator, linked
  // live to a Studio.
  .executableTarget(
    name: "retrace-demo",
    dependencies: ["Retrace", "RetraceLive", "RetraceLog", "RetraceExamples", .argumentParser],
    path: "Examples/Demo"
  ),
  // Records a session and waits to be killed, or traps: what the crash tests run. A test
  // helper, so it lives under Tests/.
  .executableTarget(
    name: "retrace-crash-child",
    dependencies: ["Retrace", "RetraceLog", "RetraceExamples", "CRetraceTrap"],
    path: "Tests/Helpers/retrace-crash-child"
  ),
]

// MARK: - Tests

let tests: [Target] = [
  .testTarget(name: "RetraceCBORTests", dependencies: ["RetraceCBOR", .propertyBased]),
  .testTarget(
    name: "RetraceTests",
    dependencies: ["Retrace", "RetraceTesting", .propertyBased, .issueReportingTestSupport]
  ),
  .testTarget(
    name: "RetraceExamplesTests",
    dependencies: [
      "RetraceExamples", "RetraceTesting", "RetraceDependencies", .propertyBased,
      .issueReportingTestSupport, .casePathsCore,
    ]
  ),
  .testTarget(
    name: "RetraceCoordinatorTests",
    dependencies: ["RetraceCoordinator", "RetraceCheck", "RetraceExamples", .propertyBased]
  ),
  .testTarget(
    name: "RetraceLogTests",
    dependencies: ["RetraceLog", "retrace-crash-child", "RetraceExamples", .propertyBased],
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
      "RetraceDebugger", "RetraceLog", "RetraceExamples", "RetraceTestSupport", .customDump,
      .issueReportingTestSupport, .propertyBased,
    ]
  ),
  .testTarget(
    name: "RetraceCLITests",
    dependencies: [
      "RetraceCLI", "RetraceDebugger", "RetraceLog", "RetraceExamples", "RetraceTestSupport",
      "retrace", "retrace-crash-child", .customDump,
    ]
  ),
  .testTarget(
    name: "RetraceStudioTests",
    dependencies: [
      "RetraceStudio", "RetraceCLI", "RetraceDebugger", "RetraceExamples", "RetraceTestSupport",
      "RetraceLiveProtocol", "retrace", "retrace-demo", .flyingFox, .flyingSocks,
    ]
  ),
  .testTarget(
    name: "RetraceCheckTests",
    dependencies: ["RetraceCheck", "RetraceTesting", "RetraceExamples"]
  ),
  .testTarget(name: "RetraceLiveProtocolTests", dependencies: ["RetraceLiveProtocol"]),
  .testTarget(
    name: "RetraceLiveTests",
    dependencies: [
      "RetraceLive", "RetraceLiveProtocol", "RetraceLog", "RetraceExamples", "retrace-demo",
      .flyingFox, .flyingSocks,
    ]
  ),
  .testTarget(
    name: "RetraceTestingTests",
    dependencies: [
      "Retrace", "RetraceTesting", "RetraceDependencies", .issueReportingTestSupport,
      .casePathsCore,
    ]
  ),
]

// MARK: - The package

let package = Package(
  name: "Retrace",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "Retrace", targets: ["Retrace"]),
    .library(name: "RetraceCBOR", targets: ["RetraceCBOR"]),
    .library(name: "RetraceTesting", targets: ["RetraceTesting"]),
    .library(name: "RetraceDependencies", targets: ["RetraceDependencies"]),
    .library(name: "RetraceLog", targets: ["RetraceLog"]),
    .library(name: "RetraceCoordinator", targets: ["RetraceCoordinator"]),
    .library(name: "RetraceCheck", targets: ["RetraceCheck"]),
    .library(name: "RetraceDebugger", targets: ["RetraceDebugger"]),
    .library(name: "RetraceCLI", targets: ["RetraceCLI"]),
    .library(name: "RetraceStudio", targets: ["RetraceStudio"]),
    .library(name: "RetraceLive", targets: ["RetraceLive"]),
    // Not API: the protocol's constants, for the benchmarks' stand-in Studio, which is in a
    // package of its own (docs/LIVE.md, "The protocol's code").
    .library(name: "_RetraceLiveProtocol", targets: ["RetraceLiveProtocol"]),
    .executable(name: "retrace", targets: ["retrace"]),
    .executable(name: "retrace-demo", targets: ["retrace-demo"]),
    // Not API: the example domains, for the benchmark and fuzzing packages (Benchmarks/,
    // Fuzz/), which can use only products. Apps should not depend on it.
    .library(name: "_RetraceExamples", targets: ["RetraceExamples"]),
  ],
  dependencies: dependencies,
  targets: store + recording + debugger + examples + tests,
  swiftLanguageModes: [.v6]
)
