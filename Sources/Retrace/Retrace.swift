// The codec and the state hash are their own module; an app that imports Retrace sees them
// as before (its `Codable` actions and states are encoded with them).
@_exported import RetraceCBOR

/// Retrace: an event-sourced state machine library.
///
/// See `docs/ARCHITECTURE.md` for an overview of the modules.
public enum RetraceVersion {
  /// The library's version, written into every trace's header as the producer.
  public static let string = "0.1.0"
}
