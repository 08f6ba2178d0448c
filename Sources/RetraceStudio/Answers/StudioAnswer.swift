import RetraceLog

/// An answer of the Studio's API: a versioned report (``VersionedReport``), written by
/// ``ReportJSON`` as the CLI's reports are. What a state holds (its preview, an action's
/// JSON, the paths in it) is data, not the answer's shape: it is carried as ``EncodedJSON``.
protocol StudioAnswer: Encodable, Sendable {}

extension StudioAnswer {
  /// The answer as the page receives it: one line of JSON.
  ///
  /// - Throws: `EncodingError` when a number in it is not finite.
  var text: String {
    get throws { try ReportJSON.text(self) }
  }
}

/// An answer that is JSON another encoder wrote (`bench`'s report, as `retrace bench --json`
/// writes it; `export`'s JSON Lines as a JSON string).
extension EncodedJSON: StudioAnswer {}

/// `GET /api/sessions`: an array of the sessions' entries, each an answer of its own.
struct AnswerList: StudioAnswer {
  var items: [any StudioAnswer]

  func encode(to encoder: any Encoder) throws {
    var array = encoder.unkeyedContainer()
    for item in items { try array.encode(item) }
  }
}

/// What every failed request answers, with its HTTP status.
struct ErrorAnswer: StudioAnswer, VersionedReport {
  static var currentVersion: Int { 1 }
  var version = Self.currentVersion
  /// One line: what is wrong, in the terms of the file, the session or the request.
  var error: String
}

/// `DELETE /api/sessions/{id}`.
struct RemovedAnswer: StudioAnswer, VersionedReport {
  static var currentVersion: Int { 1 }
  var version = Self.currentVersion
  var removed = true
  var id: String
}

/// `POST …/jump`: the sequence number the app was sent to.
struct JumpSentAnswer: StudioAnswer, VersionedReport {
  static var currentVersion: Int { 1 }
  var version = Self.currentVersion
  var sent = true
  var to: UInt64
}

/// `POST …/dispatch`: the case of the action the app was sent.
struct DispatchSentAnswer: StudioAnswer, VersionedReport {
  static var currentVersion: Int { 1 }
  var version = Self.currentVersion
  var sent = true
  var `case`: String
}

/// `POST /api/uploads`: the session the upload opened as, and where the Studio keeps it.
struct UploadAnswer: StudioAnswer, VersionedReport {
  static var currentVersion: Int { 1 }
  var version = Self.currentVersion
  var id: String
  var file: String
  var bytes: Int
}
