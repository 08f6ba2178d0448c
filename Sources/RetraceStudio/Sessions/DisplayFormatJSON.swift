import Retrace
import RetraceLog

extension DisplayFormat {
  /// As the page reads it: `{"money": {"currencyCode": "EUR", "minorUnits": 2}}` or
  /// `{"date": "epochSeconds"}`.
  var json: JSONValue {
    switch self {
    case .money(let currencyCode, let minorUnits):
      .object([
        (
          "money",
          .object([
            ("currencyCode", .string(currencyCode)), ("minorUnits", .int(Int64(minorUnits))),
          ])
        )
      ])
    case .date(let encoding): .object([("date", .string(encoding.rawValue))])
    }
  }

  /// A domain's display formats, by path pattern, as the page reads them.
  static func json(_ formats: [String: DisplayFormat]) -> JSONValue {
    .object(formats.sorted { $0.key < $1.key }.map { ($0.key, $0.value.json) })
  }
}
