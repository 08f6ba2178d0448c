/// How Retrace's tools show a number of a domain's state: an amount in cents as money, a
/// date in seconds since 1970 as a date.
///
/// A domain names the fields to format by their path, as a ``RedactionPolicy`` names state
/// fields: the keys joined by dots, `*` for any element of an array (or any key of a
/// dictionary), `**` for any number of keys.
///
/// ```swift
/// let formats: [String: DisplayFormat] = [
///   "accounts.*.balance": .money(currencyCode: "EUR"),
///   "**.amount": .money(currencyCode: "EUR"),
///   "**.date": .date(.epochSeconds),
/// ]
/// print(DisplayFormat.money(currencyCode: "EUR").format("-172850")!)
/// print(DisplayFormat.date(.epochSeconds).format("1763771000.5")!)
/// ```
///
/// ```
/// -1,728.50 EUR
/// 2025-11-22 00:23:20 UTC
/// ```
///
/// Only what is shown changes: `retrace state` and `retrace diff` write the formatted value
/// beside the raw one (`balance: 4412 (44.12 EUR)`), Retrace Studio shows it with the raw
/// value on hover, and every `--json` output and trace keeps the raw value. An action's
/// payload values are matched by their path in the action's encoding, from the case's name
/// (`deposit(amount: 4412)` is at `deposit.amount`, which `**.amount` matches): labels and
/// the CLI's action lines show them formatted too (<doc:DefiningADomain>).
public enum DisplayFormat: Sendable, Hashable {
  /// An integer amount in the currency's minor units (cents), shown in major units with
  /// `minorUnits` decimals and the currency code: `4412` as `44.12 EUR`.
  case money(currencyCode: String, minorUnits: Int = 2)
  /// A date, stored as a number since 1970-01-01 00:00 UTC, shown in UTC:
  /// `2025-11-22 00:23:20 UTC`.
  case date(DateEncoding)

  /// How a date is stored as a number.
  public enum DateEncoding: String, Sendable, Hashable {
    /// Seconds since 1970 (`Date.timeIntervalSince1970`), fractions dropped.
    case epochSeconds
    /// Milliseconds since 1970, as JavaScript stores dates.
    case epochMilliseconds
  }

  /// The value shown for the number written as `raw` (as JSON or `retrace state` writes it),
  /// or `nil` when `raw` is not a number this format shows (a fraction of a cent, a date out
  /// of range, a string).
  ///
  /// - Parameter raw: The number's text, such as `4412` or `1763771000.5`.
  /// - Returns: The formatted value.
  public func format(_ raw: String) -> String? {
    switch self {
    case .money(let currencyCode, let minorUnits):
      guard let amount = Int(raw), (0...18).contains(minorUnits) else { return nil }
      return Self.money(amount, minorUnits: minorUnits) + " " + currencyCode
    case .date(let encoding):
      guard let number = Double(raw), number.isFinite else { return nil }
      let seconds = encoding == .epochSeconds ? number : number / 1_000
      // Years 0 to 9999: what a four-digit year writes.
      guard (-62_167_219_200.0..<253_402_300_800.0).contains(seconds) else { return nil }
      return Self.date(Int64(seconds.rounded(.down)))
    }
  }

  /// `amount` minor units as major units, with thousands separated by commas.
  private static func money(_ amount: Int, minorUnits: Int) -> String {
    var digits = String(amount.magnitude)
    if digits.count <= minorUnits {
      digits = String(repeating: "0", count: minorUnits - digits.count + 1) + digits
    }
    let whole = digits.dropLast(minorUnits)
    var grouped = ""
    for (offset, digit) in whole.enumerated() {
      if offset > 0, (whole.count - offset) % 3 == 0 { grouped.append(",") }
      grouped.append(digit)
    }
    let fraction = minorUnits > 0 ? "." + digits.suffix(minorUnits) : ""
    return (amount < 0 ? "-" : "") + grouped + fraction
  }

  /// `seconds` since 1970 as `yyyy-MM-dd HH:mm:ss UTC`: the same text on every platform and
  /// in every locale.
  private static func date(_ seconds: Int64) -> String {
    let time = UTCTime(secondsSince1970: seconds)
    let pad = UTCTime.padded
    return "\(pad(time.year, 4))-\(pad(time.month, 2))-\(pad(time.day, 2)) "
      + "\(pad(time.hour, 2)):\(pad(time.minute, 2)):\(pad(time.second, 2)) UTC"
  }
}

/// A domain's display formats, matched against the paths of its state's values.
package struct DisplayFormatTable: Sendable {
  private let patterns: [(keys: [Substring], format: DisplayFormat)]

  /// A table of `formats`, by path pattern. When several patterns match a value, the one with
  /// the most keys that are not `*` or `**` wins, then the longest.
  package init(_ formats: [String: DisplayFormat]) {
    patterns = formats.map { (pattern, format) in
      (pattern.split(separator: ".", omittingEmptySubsequences: false), format)
    }.sorted { a, b in
      let literal = { (keys: [Substring]) in keys.filter { $0 != "*" && $0 != "**" }.count }
      return (literal(a.keys), a.keys.count, a.keys.joined(separator: "."))
        > (literal(b.keys), b.keys.count, b.keys.joined(separator: "."))
    }
  }

  /// Whether the table has no formats.
  package var isEmpty: Bool { patterns.isEmpty }

  /// The format of the value at `path`: its keys, with `nil` for an array's index.
  package func format(at path: [String?]) -> DisplayFormat? {
    patterns.first { Self.matches($0.keys[...], path[...]) }?.format
  }

  private static func matches(_ pattern: ArraySlice<Substring>, _ path: ArraySlice<String?>)
    -> Bool
  {
    guard let first = pattern.first else { return path.isEmpty }
    if first == "**" {
      for start in path.indices + [path.endIndex]
      where matches(pattern.dropFirst(), path[start...]) {
        return true
      }
      return false
    }
    guard let key = path.first else { return false }
    guard first == "*" || key.map({ first == $0 }) == true else { return false }
    return matches(pattern.dropFirst(), path.dropFirst())
  }
}
