// Retrace re-exports IdentifiedCollections, as TCA does: a `forEach` runs on an
// `IdentifiedArrayOf`, which an app then has with `import Retrace` alone.
@_exported import IdentifiedCollections
