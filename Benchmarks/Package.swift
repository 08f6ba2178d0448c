// swift-tools-version: 6.1
// The Retrace benchmarks: a package of their own, so that the library's users never build
// package-benchmark. Run them from the repository root:
//
//   swift package --package-path Benchmarks benchmark
//   scripts/bench/bench-table            # the whole suite, rendered as Benchmarks/README.md's table
import PackageDescription

let package = Package(
  name: "RetraceBenchmarks",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(name: "Retrace", path: ".."),
    // The default traits need a package this machine's mirror does not have; the malloc
    // interposer alone gives the malloc counts.
    .package(
      url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    // SHA-1 for the WebSocket handshake of W4l's sink, the stand-in Studio the live link
    // streams to.
    .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
  ],
  targets: [
    // What the benchmarks share: seeded workloads, the 1,000,000-action trace, the table's
    // figures. A plain library so that every benchmark executable measures the same things.
    .target(
      name: "RetraceBenchmarkSupport",
      dependencies: [
        .product(name: "Retrace", package: "Retrace"),
        .product(name: "RetraceLog", package: "Retrace"),
        .product(name: "RetraceCoordinator", package: "Retrace"),
        // The live protocol's constants, for W4l's sink; not API (docs/LIVE.md).
        .product(name: "_RetraceLiveProtocol", package: "Retrace"),
        .product(name: "_RetraceExamples", package: "Retrace"),
        .product(name: "Benchmark", package: "benchmark"),
        .product(name: "Crypto", package: "swift-crypto"),
      ],
      path: "Sources/RetraceBenchmarkSupport"
    ),
    benchmark("Store"),
    benchmark("Recording"),
    benchmark("Replay"),
    benchmark("Navigation"),
    benchmark("Size"),
    benchmark("Check"),
  ],
  swiftLanguageModes: [.v6]
)

/// A package-benchmark executable in `Benchmarks/<name>/<name>.swift`.
func benchmark(_ name: String) -> Target {
  .executableTarget(
    name: name,
    dependencies: [
      "RetraceBenchmarkSupport",
      .product(name: "Retrace", package: "Retrace"),
      .product(name: "RetraceLog", package: "Retrace"),
      .product(name: "RetraceCoordinator", package: "Retrace"),
      .product(name: "_RetraceExamples", package: "Retrace"),
      .product(name: "RetraceDebugger", package: "Retrace"),
      .product(name: "RetraceLive", package: "Retrace"),
      .product(name: "RetraceCheck", package: "Retrace"),
      .product(name: "Benchmark", package: "benchmark"),
    ],
    path: "Benchmarks/\(name)",
    plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
  )
}
