import Foundation
import RetraceLog
import Testing

@testable import RetraceDebugger

/// The preview reads a long collection by index only when it encodes as the array of its
/// elements, as its probe finds by walking its first two items.
@Suite struct StatePreviewProbeTests {
  /// A collection of numbers, encoded as the array of its elements, or of each one doubled.
  struct Ledger: RandomAccessCollection, Encodable {
    var items: [Int]
    var doubled = false
    var startIndex: Int { items.startIndex }
    var endIndex: Int { items.endIndex }
    subscript(position: Int) -> Int { items[position] }

    func encode(to encoder: any Encoder) throws {
      var container = encoder.unkeyedContainer()
      for item in items { try container.encode(doubled ? item * 2 : item) }
    }
  }

  /// The items a preview holds of the array at the root, by index.
  func kept(_ value: some Encodable) throws -> [Int: String] {
    guard case .array(let count, let items, _) = try StatePreview(value).root else {
      Issue.record("not an array")
      return [:]
    }
    #expect(count == 300)
    return Dictionary(uniqueKeysWithValues: items.map { ($0.index, $0.value.json.text) })
  }

  @Test func aCollectionThatEncodesAsItsElementsIsReadByIndex() throws {
    let items = try kept(Ledger(items: Array(0..<300)))
    #expect(items.count == 100)
    #expect(items[0] == "0" && items[49] == "49" && items[250] == "250" && items[299] == "299")
  }

  /// Read by index, the preview would show the elements, not what the collection encodes.
  @Test func aCollectionThatEncodesOtherValuesIsEncoded() throws {
    let items = try kept(Ledger(items: Array(0..<300), doubled: true))
    #expect(items.count == 100)
    #expect(items[1] == "2" && items[49] == "98" && items[299] == "598")
  }
}
