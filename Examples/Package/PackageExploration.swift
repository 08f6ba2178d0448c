import Retrace

/// What `retrace check` may send in a package state: each recipient field set to its other
/// value (empty or filled in), an item packed, the first or last item removed, and two
/// changes from outside the store: another screen filling in the whole parcel, and an
/// address service correcting the address of the parcel as it is.
///
/// At most 9 actions a state. Contents grow with every item, so ``constraint`` stops
/// exploring a parcel with more than two: 180 states, searched completely in well under a
/// second.
public enum PackageExploration {
  /// The values each field may be set to besides empty.
  public static let values: [RecipientField: String] = [
    .firstName: "Ada", .lastName: "Lovelace", .postalAddress: "12 St James's Square, London",
  ]

  /// The items that may be packed.
  public static let items = ["Book", "Tea"]

  /// The address the outside address service writes.
  public static let correctedAddress = "12 St James's Square, London SW1Y 4LB"

  /// The parcel another screen may write.
  public static let filledParcel = Parcel(
    recipient: Recipient(
      firstName: "Ada", lastName: "Lovelace", postalAddress: "12 St James's Square, London"),
    contents: ["Book"])

  /// The actions that may be sent in `state`.
  @Sendable public static func actions(in state: PackageState) -> [PackageAction] {
    var actions: [PackageAction] = []
    for field in RecipientField.allCases {
      let value = state.parcel.recipient[field].isEmpty ? values[field] ?? "" : ""
      actions.append(.edit(field: field, value: value))
    }
    for item in items { actions.append(.addItem(name: item)) }
    if !state.parcel.contents.isEmpty {
      actions.append(.removeItem(index: 0))
      if state.parcel.contents.count > 1 {
        actions.append(.removeItem(index: state.parcel.contents.count - 1))
      }
    }
    actions.append(.externalChange(parcel: filledParcel))
    var corrected = state.parcel
    corrected.recipient.postalAddress = correctedAddress
    actions.append(.externalChange(parcel: corrected))
    return actions
  }

  /// Which states are explored further: parcels with at most two items.
  @Sendable public static func constraint(_ state: PackageState) -> Bool {
    state.parcel.contents.count <= 2
  }
}

/// Named conditions `retrace check --reach` can search for in a package state.
public let packagePredicates: [StatePredicate<PackageState>] = [
  StatePredicate("addressed", "The parcel has a recipient's full name and an address.") {
    !$0.parcel.recipient.firstName.isEmpty && !$0.parcel.recipient.lastName.isEmpty
      && !$0.parcel.recipient.postalAddress.isEmpty
  },
  StatePredicate("corrected-address", "The address service corrected the address.") {
    $0.parcel.recipient.postalAddress == PackageExploration.correctedAddress
  },
  StatePredicate("two-items", "Two items are packed.") { $0.parcel.contents.count == 2 },
]
