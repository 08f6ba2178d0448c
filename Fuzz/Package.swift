// swift-tools-version: 6.1
// The libFuzzer harness for Retrace's readers, as a nested package so that the library's
// own builds never see fuzzer flags. Build and run it with `scripts/fuzz` (see
// docs/RELIABILITY.md): the sanitizer flags are passed on the command line, so that they
// instrument the library's code too, not only the harness.
import PackageDescription

let package = Package(
  name: "RetraceFuzz",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(name: "Retrace", path: ".."),
    .package(url: "https://github.com/pointfreeco/swift-identified-collections", from: "1.1.1"),
  ],
  targets: [
    // The harness builds trace files around the fuzzer's bytes, so it compresses with
    // libzstd itself (the library's CZstd target is not a product).
    .systemLibrary(name: "CFuzzSupport", pkgConfig: "libzstd"),
    // The example domains, compiled from the library's own sources (`Sources/ExampleDomains`
    // links to `../Sources/RetraceExamples`): a target of the Retrace package, not a product.
    .target(
      name: "ExampleDomains",
      dependencies: [
        .product(name: "Retrace", package: "Retrace"),
        .product(name: "RetraceCoordinator", package: "Retrace"),
        .product(name: "IdentifiedCollections", package: "swift-identified-collections"),
      ],
      path: "Sources/ExampleDomains"
    ),
    .executableTarget(
      name: "retrace-fuzz",
      dependencies: [
        "CFuzzSupport",
        .product(name: "Retrace", package: "Retrace"),
        .product(name: "RetraceLog", package: "Retrace"),
        "ExampleDomains",
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
