import Retrace

/// Realistic sessions for the package domain.
///
/// The generator plays the user at the parcel form and the world outside the store: the
/// user fills in and corrects the recipient, packs items and takes some out; now and then
/// the parcel changes outside the store (an address service rewrites the address in
/// capitals, another device packs or unpacks an item, a sync replaces the recipient), which
/// the adapter records as `externalChange` with the whole parcel.
public enum PackageWorkload {
  /// The workload of ``packageDomain``.
  public static let workload = Workload<PackageState, PackageAction> { state, _, random in
    next(state, random: &random)
  }

  static let firstNames = ["Ada", "Grace", "Alan", "Katherine", "Linus", "Margaret", "Tim"]
  static let lastNames = ["Lovelace", "Hopper", "Turing", "Johnson", "Torvalds", "Hamilton"]
  static let addresses = [
    "12 St James's Square, London", "1 Infinite Loop, Cupertino", "Damrak 1, Amsterdam",
    "Unter den Linden 5, Berlin", "Rue de Rivoli 99, Paris",
  ]
  static let items = [
    "Book", "Mug", "Scarf", "Headphones", "Postcards", "Tea", "Chocolate", "Socks", "Umbrella",
  ]

  static func next(_ state: PackageState, random: inout SeededRandom) -> PackageAction {
    let parcel = state.parcel
    switch Int.random(in: 0..<100, using: &random) {
    case 35..<55 where parcel.contents.count < 12:
      return .addItem(name: items.randomElement(using: &random)!)
    case 55..<70 where !parcel.contents.isEmpty:
      return .removeItem(index: Int.random(in: parcel.contents.indices, using: &random))
    case 70..<88:
      return .externalChange(parcel: changedOutside(parcel, random: &random))
    case 88..<93:
      // A correction: a field cleared, to be filled in again.
      return .edit(field: RecipientField.allCases.randomElement(using: &random)!, value: "")
    default:
      let field = RecipientField.allCases.randomElement(using: &random)!
      let choices =
        switch field {
        case .firstName: firstNames
        case .lastName: lastNames
        case .postalAddress: addresses
        }
      return .edit(field: field, value: choices.randomElement(using: &random)!)
    }
  }

  /// The parcel after a change made outside the store.
  private static func changedOutside(_ original: Parcel, random: inout SeededRandom) -> Parcel {
    var parcel = original
    switch Int.random(in: 0..<4, using: &random) {
    case 0:
      // An address service normalizes the address.
      parcel.recipient.postalAddress = parcel.recipient.postalAddress.uppercased()
    case 1:
      parcel.contents.append(items.randomElement(using: &random)!)
    case 2 where !parcel.contents.isEmpty:
      parcel.contents.removeFirst()
    default:
      parcel.recipient.firstName = firstNames.randomElement(using: &random)!
      parcel.recipient.lastName = lastNames.randomElement(using: &random)!
    }
    // The adapter records only changes: one that left the parcel as it was becomes another
    // device packing an item.
    if parcel == original { parcel.contents.append(items.randomElement(using: &random)!) }
    return parcel
  }
}
