import Foundation
import Synchronization
import Testing

@testable import RetraceLog

/// `ChunkPipeline`: outputs in order, never more than its window ahead of the consumer,
/// stopped early without working on the rest, and consumers that block in `take` on Swift
/// concurrency's threads still get their work done.
struct ChunkPipelineTests {
  @Test func outputsComeInOrder() {
    let pipeline = ChunkPipeline(count: 50, window: 4) { index in
      if index % 7 == 0 { usleep(200) }
      return index * 10
    }
    defer { pipeline.finish() }
    #expect((0..<50).map(pipeline.take) == (0..<50).map { $0 * 10 })
  }

  /// Taking a chunk after `finish()`, which stops the work it would wait for, traps at once
  /// instead of hanging.
  @Test func takingAfterFinishTraps() async {
    await #expect(processExitsWith: .failure) {
      let pipeline = ChunkPipeline(count: 100, window: 2) { $0 }
      _ = pipeline.take(0)
      pipeline.finish()
      _ = pipeline.take(1)
    }
  }

  @Test func workStaysWithinTheWindow() {
    let taken = Atomic<Int>(0)
    let furthest = Atomic<Int>(0)
    let pipeline = ChunkPipeline(count: 200, window: 3) { index in
      // How far ahead of the consumer this chunk is.
      let ahead = index - taken.load(ordering: .sequentiallyConsistent)
      _ = furthest.max(ahead, ordering: .sequentiallyConsistent)
      return index
    }
    for index in 0..<200 {
      #expect(pipeline.take(index) == index)
      taken.add(1, ordering: .sequentiallyConsistent)
    }
    pipeline.finish()
    // At most the window's chunks beyond the one being consumed.
    #expect(furthest.load(ordering: .sequentiallyConsistent) <= 3)
  }

  @Test func finishingEarlyStopsTheWork() {
    let worked = Atomic<Int>(0)
    let pipeline = ChunkPipeline(count: 1_000, window: 4) { index in
      worked.add(1, ordering: .relaxed)
      return index
    }
    for index in 0..<3 { #expect(pipeline.take(index) == index) }
    pipeline.finish()
    let afterFinish = worked.load(ordering: .relaxed)
    // The three taken, and at most the window's worth begun before the finish.
    #expect(afterFinish <= 3 + 4)
    usleep(20_000)
    #expect(worked.load(ordering: .relaxed) == afterFinish)
  }

  @Test func anEmptyPipelineFinishes() {
    let pipeline = ChunkPipeline(count: 0, window: 8) { $0 }
    pipeline.finish()
  }

  /// More consumers than the machine has cores, each blocking in `take` on a thread of the
  /// Swift concurrency pool: every one gets its chunks.
  @Test func consumersOnEveryPoolThreadAllFinish() async {
    let consumers = ProcessInfo.processInfo.activeProcessorCount * 4
    let sums = await withTaskGroup(of: Int.self) { group in
      for _ in 0..<consumers {
        group.addTask {
          let pipeline = ChunkPipeline(count: 20, window: 2) { index in
            usleep(500)
            return index
          }
          defer { pipeline.finish() }
          return (0..<20).reduce(0) { $0 + pipeline.take($1) }
        }
      }
      return await group.reduce(into: []) { $0.append($1) }
    }
    #expect(sums == Array(repeating: 190, count: consumers))
  }
}
