/// Retrace: an event-sourced state machine library.
///
/// See `docs/ARCHITECTURE.md` for an overview of the modules.
public enum RetraceVersion {
  /// The library's version, written into every trace's header as the producer.
  public static let string = "0.1.0"
}
