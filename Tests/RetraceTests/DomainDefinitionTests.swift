import Retrace
import Testing

/// A cart: the shape of `DomainDefinition`'s own example.
struct Cart: Codable, Equatable, Sendable {
  var lines: [String: Int] = [:]
}

enum CartAction: Codable, Equatable, Sendable {
  case add(sku: String, quantity: Int)
  case remove(sku: String)
  case checkOut
}

let cartReducer = Reduce<Cart, CartAction> { cart, action in
  switch action {
  case .add(let sku, let quantity): cart.lines[sku, default: 0] += quantity
  case .remove(let sku): cart.lines[sku] = nil
  case .checkOut: cart.lines = [:]
  }
  return .none
}

@Suite struct DomainDefinitionTests {
  @Test func aDomainKeepsItsSampleActions() {
    let samples: [CartAction] = [
      .add(sku: "", quantity: 1), .add(sku: "tea", quantity: 2), .remove(sku: ""), .checkOut,
    ]
    let domain = DomainDefinition(
      name: "checkout", summary: "A shopping cart.", initialState: Cart(), reducer: cartReducer,
      sampleActions: samples)
    #expect(domain.sampleActions == samples)
    #expect(domain.actionCases == ["add", "remove", "checkOut"])
  }

  @Test func aDomainMadeFromCaseNamesHasNoSampleActions() {
    let domain = DomainDefinition(
      name: "checkout", summary: "A shopping cart.", initialState: Cart(), reducer: cartReducer,
      actionCases: ["add", "remove", "checkOut"])
    #expect(domain.sampleActions.isEmpty)
  }
}
