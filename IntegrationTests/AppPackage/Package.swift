// swift-tools-version: 6.1
// An app's package as the README and Retrace's article "Defining a domain" set one up: it
// depends on Retrace by path, defines its domain, records sessions, builds its own debugger,
// and tests with TestStore from a test target that depends on Retrace and RetraceTesting
// only; a feature that saves to a server uses RetraceDependencies for its client and clock.
// scripts/test runs its tests.
import PackageDescription

let package = Package(
  name: "TallyApp",
  platforms: [.macOS(.v15), .iOS(.v18)],
  dependencies: [.package(name: "Retrace", path: "../..")],
  targets: [
    .target(
      name: "TallyApp",
      dependencies: [
        .product(name: "Retrace", package: "Retrace"),
        .product(name: "RetraceLog", package: "Retrace"),
      ]),
    // A feature that saves the tally to a server: dependencies and a clock, as a TCA app
    // reaches them.
    .target(
      name: "TallySync",
      dependencies: [
        "TallyApp",
        .product(name: "Retrace", package: "Retrace"),
        .product(name: "RetraceDependencies", package: "Retrace"),
      ]),
    .executableTarget(
      name: "tally-debugger",
      dependencies: ["TallyApp", .product(name: "RetraceCLI", package: "Retrace")]),
    .testTarget(
      name: "TallyAppTests",
      dependencies: [
        "TallyApp",
        .product(name: "Retrace", package: "Retrace"),
        .product(name: "RetraceTesting", package: "Retrace"),
      ]
    ),
    .testTarget(
      name: "TallySyncTests",
      dependencies: [
        "TallySync", "TallyApp",
        .product(name: "Retrace", package: "Retrace"),
        .product(name: "RetraceDependencies", package: "Retrace"),
        .product(name: "RetraceTesting", package: "Retrace"),
      ]
    ),
    .testTarget(
      name: "TallyDebuggerTests",
      dependencies: [
        "TallyApp", "tally-debugger",
        .product(name: "Retrace", package: "Retrace"),
        .product(name: "RetraceLog", package: "Retrace"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
