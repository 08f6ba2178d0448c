/// A field of a parcel's recipient.
public enum RecipientField: String, Codable, CaseIterable, Hashable, Sendable {
  /// The recipient's first name.
  case firstName
  /// The recipient's last name.
  case lastName
  /// The recipient's postal address.
  case postalAddress
}

/// Who a parcel goes to.
public struct Recipient: Codable, Hashable, Sendable {
  /// The recipient's first name.
  public var firstName: String
  /// The recipient's last name.
  public var lastName: String
  /// The recipient's postal address, on one line.
  public var postalAddress: String

  /// Creates a recipient.
  ///
  /// - Parameters:
  ///   - firstName: The recipient's first name.
  ///   - lastName: The recipient's last name.
  ///   - postalAddress: The recipient's postal address.
  public init(firstName: String = "", lastName: String = "", postalAddress: String = "") {
    self.firstName = firstName
    self.lastName = lastName
    self.postalAddress = postalAddress
  }

  /// The value of one field.
  public subscript(field: RecipientField) -> String {
    get {
      switch field {
      case .firstName: firstName
      case .lastName: lastName
      case .postalAddress: postalAddress
      }
    }
    set {
      switch field {
      case .firstName: firstName = newValue
      case .lastName: lastName = newValue
      case .postalAddress: postalAddress = newValue
      }
    }
  }
}

/// A parcel: its recipient and what is in it.
public struct Parcel: Codable, Hashable, Sendable {
  /// Who the parcel goes to.
  public var recipient: Recipient
  /// What is in the parcel, one line per item, in the order they were packed.
  public var contents: [String]

  /// Creates a parcel.
  ///
  /// - Parameters:
  ///   - recipient: Who the parcel goes to.
  ///   - contents: What is in it.
  public init(recipient: Recipient = Recipient(), contents: [String] = []) {
    self.recipient = recipient
    self.contents = contents
  }

  /// The one line that describes the parcel, such as
  /// `To Ada Lovelace at 12 St James's Square, London: 2 items`.
  public var summary: String {
    let name = [recipient.firstName, recipient.lastName].filter { !$0.isEmpty }
      .joined(separator: " ")
    let address = recipient.postalAddress.isEmpty ? "no address" : recipient.postalAddress
    let items = contents.count == 1 ? "1 item" : "\(contents.count) items"
    return "To \(name.isEmpty ? "no one" : name) at \(address): \(items)"
  }
}

/// The parcel screen's state: the parcel the form edits and the summary line it shows.
public struct PackageState: Codable, Hashable, Sendable {
  /// The parcel, as the form and the outside model agree it is.
  public var parcel: Parcel
  /// The summary line the screen shows above the form, kept up to date by every change of
  /// the parcel, the form's and the outside model's.
  public var summary: String

  /// Creates a parcel screen's state, with the parcel's summary.
  ///
  /// - Parameter parcel: The parcel.
  public init(parcel: Parcel = Parcel()) {
    self.parcel = parcel
    self.summary = parcel.summary
  }
}
