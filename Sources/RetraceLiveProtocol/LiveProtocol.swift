/// The live link's protocol (`docs/LIVE.md`): what both of its ends, and their stand-ins in
/// the tests and benchmarks, agree on.
///
/// The messages (``AppMessage`` from the app, ``StudioMessage`` from the Studio), their one
/// codec and the endpoint's address (``StudioEndpoint``) are `package`: only this package's
/// modules use them. These constants are public, through the underscored product
/// `_RetraceLiveProtocol`, for the benchmarks' stand-in Studio, which lives in a package of
/// its own; they are not API.
public enum LiveProtocol {
  /// The protocol's version, which a `hello` carries as `protocol`: 1. It goes up only for a
  /// change an older peer cannot ignore.
  public static let version: UInt64 = 1

  /// The path of the Studio's WebSocket endpoint: `/api/live`.
  public static let endpointPath = "/api/live"

  /// The commands of the Studio that this package's link carries out, which its `hello`
  /// lists (`commands`). A `hello` without `commands` is an older app's, which takes `jump`
  /// only.
  package static let appCommands = ["jump", "dispatch"]
}
