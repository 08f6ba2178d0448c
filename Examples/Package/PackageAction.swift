/// The package example's actions: the form's edits, and the changes made to the parcel
/// outside the store.
///
/// Encoded as Swift synthesizes them, for example
/// `{"edit":{"field":"postalAddress","value":"12 St James's Square, London"}}`,
/// `{"addItem":{"name":"Book"}}` or `{"externalChange":{"parcel":{…}}}`.
public enum PackageAction: Codable, Equatable, Sendable {
  /// The form changed a recipient field to `value`, its whole new text.
  case edit(field: RecipientField, value: String)
  /// The form added an item at the end of the contents.
  case addItem(name: String)
  /// The form removed the item at `index` of the contents; an index out of range is ignored.
  case removeItem(index: Int)
  /// The parcel was changed outside the store (another screen, a sync, a service that
  /// corrects addresses), observed by an ``Retrace/ExternalModelAdapter``; `parcel` is the
  /// outside model's parcel now.
  case externalChange(parcel: Parcel)

  /// One action of each case, in the order tools list them.
  public static let samples: [PackageAction] = [
    .edit(field: .firstName, value: ""), .addItem(name: ""), .removeItem(index: 0),
    .externalChange(parcel: Parcel()),
  ]
}
