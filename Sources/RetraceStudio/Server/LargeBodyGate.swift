import FlyingFox
import Synchronization

/// Who may send a body larger than ``RequestLimits/body`` (only an upload may), checked
/// before a byte of it is read, and how many such bodies are read at once.
///
/// Without it, a client without the token could make the Studio hold a body of
/// `--upload-limit` bytes per connection until the token check refused it (40 connections:
/// 2.5 GB).
final class LargeBodyGate: Sendable {
  /// How many large bodies are read (and opened) at once; one more is refused with 503.
  static let defaultLimit = 2

  let limit: Int
  private let reading = Mutex(0)
  private let vet: @Sendable (HTTPRequest) -> RequestRefusal?

  /// A gate that lets `limit` large bodies in at once, each of a request `vet` finds no
  /// fault with (its Host and token).
  init(limit: Int = defaultLimit, vet: @escaping @Sendable (HTTPRequest) -> RequestRefusal?) {
    self.limit = limit
    self.vet = vet
  }

  /// Admits the body of `request` (its head only): call ``done()`` once the request is
  /// answered.
  ///
  /// - Throws: `vet`'s refusal (401, 403), or 503 when `limit` bodies are being read.
  func admit(_ request: HTTPRequest) throws(RequestRefusal) {
    if let refusal = vet(request) { throw refusal }
    let admitted = reading.withLock { count in
      guard count < limit else { return false }
      count += 1
      return true
    }
    guard admitted else {
      throw RequestRefusal(503, "\(limit) uploads are being read: try again when they are done")
    }
  }

  /// Lets the next large body in.
  func done() {
    reading.withLock { $0 -= 1 }
  }
}
