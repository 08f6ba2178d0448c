// swift-tools-version: 6.1
// The libFuzzer harness for Retrace's readers, as a nested package so that the library's
// own builds never see fuzzer flags. Build and run it with `scripts/dev/fuzz` (see
// docs/RELIABILITY.md): the sanitizer flags are passed on the command line, so that they
// instrument the library's code too, not only the harness.
import PackageDescription

let package = Package(
  name: "RetraceFuzz",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(name: "Retrace", path: "..")
  ],
  targets: [
    // The harness builds trace files around the fuzzer's bytes, so it compresses with
    // libzstd itself (the library's CZstd target is not a product).
    .systemLibrary(name: "CFuzzSupport", pkgConfig: "libzstd"),
    .executableTarget(
      name: "retrace-fuzz",
      dependencies: [
        "CFuzzSupport",
        .product(name: "Retrace", package: "Retrace"),
        .product(name: "RetraceLog", package: "Retrace"),
        .product(name: "_RetraceExamples", package: "Retrace"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
