// swift-tools-version: 6.1
// An app's package as the README sets one up: it depends on Retrace by path, and its test
// target on the products Retrace and RetraceTesting only. scripts/test runs its tests.
import PackageDescription

let package = Package(
  name: "TallyApp",
  platforms: [.macOS(.v15), .iOS(.v18)],
  dependencies: [.package(name: "Retrace", path: "../..")],
  targets: [
    .target(name: "TallyApp", dependencies: [.product(name: "Retrace", package: "Retrace")]),
    .testTarget(
      name: "TallyAppTests",
      dependencies: [
        "TallyApp",
        .product(name: "Retrace", package: "Retrace"),
        .product(name: "RetraceTesting", package: "Retrace"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
