/// Zeller and Hildebrandt's *ddmin*: the smallest subsequence of `candidate` that `fails`
/// still accepts, 1-minimal (removing any one element makes `fails` return `false`).
///
/// `retrace shrink` shrinks a recorded session with it and the model checker a random
/// walk's counterexample, so the two shrink alike. It first tries each chunk alone (the
/// failure may live in one), then each chunk's complement, doubling the number of chunks
/// when neither fails.
///
/// - Parameters:
///   - candidate: Indices of elements that fail together, in order.
///   - fails: Whether a subsequence of the indices still fails.
///   - progress: Called after each round with the current candidate's length.
/// - Returns: A 1-minimal failing subsequence of `candidate`.
package func deltaDebug(
  _ candidate: [Int], fails: ([Int]) -> Bool, progress: ((Int) -> Void)? = nil
) -> [Int] {
  var candidate = candidate
  var granularity = 2
  while candidate.count >= 2 {
    let chunks = split(candidate, into: granularity)
    var reduced = false
    // Try each chunk alone: the failure may live entirely in one.
    for chunk in chunks where fails(chunk) {
      candidate = chunk
      granularity = 2
      reduced = true
      break
    }
    if !reduced {
      // Try removing each chunk.
      for skip in chunks.indices {
        let complement = chunks.indices.filter { $0 != skip }.flatMap { chunks[$0] }
        if fails(complement) {
          candidate = complement
          granularity = max(granularity - 1, 2)
          reduced = true
          break
        }
      }
    }
    progress?(candidate.count)
    if !reduced {
      if granularity >= candidate.count { break }
      granularity = min(candidate.count, granularity * 2)
    }
  }
  return candidate
}

/// Splits `elements` into `count` chunks of nearly equal length, in order.
private func split(_ elements: [Int], into count: Int) -> [[Int]] {
  var chunks: [[Int]] = []
  chunks.reserveCapacity(count)
  var start = 0
  for chunk in 0..<count {
    let end = start + (elements.count - start) / (count - chunk)
    chunks.append(Array(elements[start..<end]))
    start = end
  }
  return chunks.filter { !$0.isEmpty }
}
