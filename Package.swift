// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "Retrace",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "Retrace", targets: ["Retrace"]),
    .library(name: "RetraceCoordinator", targets: ["RetraceCoordinator"]),
    .library(name: "RetraceExamples", targets: ["RetraceExamples"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
    .package(url: "https://github.com/pointfreeco/swift-identified-collections", from: "1.1.1"),
    .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
  ],
  targets: [
    .target(
      name: "Retrace",
      dependencies: [
        .product(name: "DequeModule", package: "swift-collections"),
        .product(name: "IdentifiedCollections", package: "swift-identified-collections"),
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
    .testTarget(
      name: "RetraceCoordinatorTests",
      dependencies: [
        "RetraceCoordinator",
        "RetraceExamples",
        .product(name: "PropertyBased", package: "swift-property-based"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
