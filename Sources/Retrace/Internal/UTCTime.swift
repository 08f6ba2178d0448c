/// A time in UTC, read from the seconds since 1970 with the proleptic Gregorian calendar
/// (Howard Hinnant's `civil_from_days`): the same on every platform and in every locale.
package struct UTCTime: Equatable, Sendable {
  package var year: Int64
  package var month: Int64
  package var day: Int64
  package var hour: Int64
  package var minute: Int64
  package var second: Int64

  /// The time `seconds` after 1970-01-01 00:00:00 UTC (before it, when negative).
  package init(secondsSince1970 seconds: Int64) {
    let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
    let secondOfDay = seconds - days * 86_400
    let shifted = days + 719_468
    let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
    let dayOfEra = shifted - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    (hour, minute, second) = (secondOfDay / 3_600, secondOfDay / 60 % 60, secondOfDay % 60)
  }

  /// `value` in decimal, with zeros in front to `width` digits.
  package static func padded(_ value: Int64, _ width: Int) -> String {
    let text = String(value)
    return String(repeating: "0", count: max(0, width - text.count)) + text
  }
}
