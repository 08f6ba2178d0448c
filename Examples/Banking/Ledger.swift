/// An account's transactions, oldest first, that keep their sum as they change.
///
/// A ledger is an array of ``Transaction`` values (it encodes, decodes, compares and dumps
/// as one) with one addition: ``total``, the exact sum of the amounts, which every mutation
/// updates by what it adds and removes. No path changes an element without going through
/// that bookkeeping, so `total` is always the sum of the elements, and the
/// `balance-matches-transactions` invariant compares it with the balance in constant time
/// instead of summing every transaction after every action. That is what makes
/// `retrace bisect --invariant balance-matches-transactions` linear in the trace's length:
/// an exact bisect checks the invariant after every action, so its cost is the number of
/// actions times the invariant's cost (docs/CLI.md).
///
/// The sum is an `Int128`, so it is exact for any amounts (a ledger would need 2⁶³
/// transactions to overflow it); a hostile snapshot whose amounts add up past `Int.max`
/// has a total no balance can equal.
///
/// ```swift
/// var ledger: Ledger = [Transaction(amount: 200_000, beneficiary: "Initial Balance", date: 0)]
/// ledger.append(Transaction(amount: -2_900, beneficiary: "Internet provider", date: 1))
/// ledger[1].amount -= 100
/// print(ledger.total)
/// ```
///
/// ```
/// 197000
/// ```
public struct Ledger: Sendable {
  /// The transactions, oldest first.
  public private(set) var transactions: [Transaction]
  /// The exact sum of the transactions' amounts, in cents.
  public private(set) var total: Int128

  /// Creates a ledger holding `transactions`.
  ///
  /// - Parameter transactions: The transactions, oldest first.
  public init(_ transactions: [Transaction]) {
    self.transactions = transactions
    self.total = Self.sum(transactions)
  }

  private static func sum(_ transactions: some Sequence<Transaction>) -> Int128 {
    transactions.reduce(into: 0) { $0 += Int128($1.amount) }
  }
}

extension Ledger: RandomAccessCollection, MutableCollection, RangeReplaceableCollection {
  /// The position of the first transaction: 0.
  public var startIndex: Int { transactions.startIndex }
  /// The position after the last transaction: the count.
  public var endIndex: Int { transactions.endIndex }

  /// The transaction at `position`; setting it updates ``total``.
  public subscript(position: Int) -> Transaction {
    get { transactions[position] }
    set {
      total += Int128(newValue.amount) - Int128(transactions[position].amount)
      transactions[position] = newValue
    }
  }

  /// Creates an empty ledger.
  public init() {
    self.init([])
  }

  /// Appends a transaction and adds its amount to ``total``, in constant amortized time.
  ///
  /// - Parameter transaction: The transaction to append.
  public mutating func append(_ transaction: Transaction) {
    transactions.append(transaction)
    total += Int128(transaction.amount)
  }

  /// Replaces the transactions in `bounds` with `newElements`, updating ``total`` by the
  /// amounts removed and added.
  ///
  /// - Parameters:
  ///   - bounds: The positions to replace.
  ///   - newElements: The transactions to put there.
  public mutating func replaceSubrange(
    _ bounds: Range<Int>, with newElements: some Collection<Transaction>
  ) {
    total += Self.sum(newElements) - Self.sum(transactions[bounds])
    transactions.replaceSubrange(bounds, with: newElements)
  }

  /// Reserves space for `minimumCapacity` transactions.
  ///
  /// - Parameter minimumCapacity: The number of transactions to make room for.
  public mutating func reserveCapacity(_ minimumCapacity: Int) {
    transactions.reserveCapacity(minimumCapacity)
  }
}

extension Ledger: ExpressibleByArrayLiteral {
  /// Creates a ledger from an array literal of transactions.
  public init(arrayLiteral transactions: Transaction...) {
    self.init(transactions)
  }
}

extension Ledger: Hashable {
  /// Whether two ledgers hold the same transactions in the same order (their totals are
  /// then equal too).
  public static func == (lhs: Ledger, rhs: Ledger) -> Bool {
    lhs.transactions == rhs.transactions
  }

  /// Hashes the transactions, as an array of them hashes (the total follows from them).
  public func hash(into hasher: inout Hasher) {
    hasher.combine(transactions)
  }
}

extension Ledger: Codable {
  /// Reads an array of transactions, as `[Transaction]` writes it, and sums them.
  public init(from decoder: any Decoder) throws {
    self.init(try [Transaction](from: decoder))
  }

  /// Writes the transactions as an array, exactly as `[Transaction]` does.
  public func encode(to encoder: any Encoder) throws {
    try transactions.encode(to: encoder)
  }
}

extension Ledger: CustomReflectable {
  /// The transactions as a collection, so dumps and diffs show a ledger as the array it
  /// encodes as.
  public var customMirror: Mirror {
    Mirror(self, unlabeledChildren: transactions, displayStyle: .collection)
  }
}
