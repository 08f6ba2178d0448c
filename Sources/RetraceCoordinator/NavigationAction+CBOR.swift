import Retrace

// Hand-written CBOR for navigation actions (see `CBOREncodable`), for apps whose route type
// has a hand-written conformance too: navigation is a few percent of an app's actions, and
// through `Codable` it cost about as much to record and replay as all the other actions
// together. The bytes are `CBOREncoder(deterministic: true)`'s: `{"case": {label: value}}`,
// labels sorted. A `setPath` (a deep link, rare) writes its path through `Codable`.

extension NavigationAction: CBOREncodable where Route: CBOREncodable {
  /// Writes `{"case": {label: value, …}}`, labels sorted.
  public func encode(to writer: inout CBORWriter) {
    switch self {
    case .push(let route):
      writer.writeCase("push", fields: 1)
      writer.writeKey("route")
      writer.write(route)
    case .pop:
      writer.writeCase("pop", fields: 0)
    case .popTo(let route):
      writer.writeCase("popTo", fields: 1)
      writer.writeKey("route")
      writer.write(route)
    case .popToRoot:
      writer.writeCase("popToRoot", fields: 0)
    case .present(let route, let style):
      writer.writeCase("present", fields: 2)
      writer.writeKey("route")
      writer.write(route)
      writer.writeKey("style")
      writer.write(style.rawValue)
    case .dismiss:
      writer.writeCase("dismiss", fields: 0)
    case .selectTab(let tab):
      writer.writeCase("selectTab", fields: 1)
      writer.writeKey("tab")
      writer.write(tab)
    case .setPath(let path):
      writer.writeCase("setPath", fields: 1)
      writer.writeKey("path")
      // RoutePath's Codable conformance throws only if a route's does, which a route with
      // a hand-written conformance does not.
      try? writer.encode(path)
    }
  }
}

extension NavigationAction: CBORDecodable where Route: CBORDecodable {
  /// Reads `{"case": {label: value, …}}`, labels in any order.
  public init(from reader: inout CBORReader) throws(CBORError) {
    let (name, fields) = try reader.readCase("a navigation action")
    var route: Route?
    var style: PresentationStyle?
    var tab: String?
    var path: RoutePath<Route>?
    for _ in 0..<fields {
      switch try reader.readKey() {
      case "route": route = try reader.read(Route.self)
      case "style":
        let raw = try reader.read(String.self)
        guard let value = PresentationStyle(rawValue: raw) else {
          throw reader.invalidValue("no presentation style '\(raw)'")
        }
        style = value
      case "tab": tab = try reader.read(String.self)
      case "path": path = try reader.decode(RoutePath<Route>.self)
      default: try reader.skip()
      }
    }
    switch name {
    case "push":
      guard let route else { throw reader.missingKey("route") }
      self = .push(route: route)
    case "pop": self = .pop
    case "popTo":
      guard let route else { throw reader.missingKey("route") }
      self = .popTo(route: route)
    case "popToRoot": self = .popToRoot
    case "present":
      guard let route, let style else { throw reader.missingKey("route or style") }
      self = .present(route: route, style: style)
    case "dismiss": self = .dismiss
    case "selectTab":
      guard let tab else { throw reader.missingKey("tab") }
      self = .selectTab(tab: tab)
    case "setPath":
      guard let path else { throw reader.missingKey("path") }
      self = .setPath(path: path)
    default:
      throw reader.invalidValue("no navigation action case '\(name)'")
    }
  }
}
