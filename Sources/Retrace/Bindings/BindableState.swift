/// A state whose fields a form edits with ``BindingAction``s: it names each bindable field
/// once, in ``bindings``.
///
/// Swift key paths are neither `Codable` nor named, so a recorded binding action could not
/// say which field it set. The declaration gives each field the name a trace records and the
/// key path the store writes:
///
/// ```swift
/// struct NoteForm: Codable, Equatable, Sendable {
///   var title = ""
///   var isPinned = false
/// }
///
/// extension NoteForm: BindableState {
///   static let bindings = Bindings<NoteForm>()
///     .field("title", \.title)
///     .field("isPinned", \.isPinned)
/// }
/// ```
///
/// Rename a Swift property freely; keep its binding's name, or upcast old traces
/// (``Domain/upcast(_:fromVersion:)``), since the name is what recorded sessions hold.
public protocol BindableState {
  /// The fields that ``BindingAction``s may set, each with the name traces record.
  static var bindings: Bindings<Self> { get }
}
