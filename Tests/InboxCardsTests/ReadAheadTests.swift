import Synchronization
import Testing

@testable import InboxCards

/// `ReadAhead`: what one thread makes, the caller gets, every element once and in order, however the batches and
/// the depth fall.
@Suite struct ReadAheadTests {
    @Test(arguments: [(1, 1), (3, 1), (4, 2), (64, 4), (1000, 1)], [0, 1, 7, 64, 10_000])
    func everyElementArrivesInOrder(_ shape: (size: Int, depth: Int), count: Int) {
        var received: [Int] = []
        ReadAhead<Int>.run(size: shape.size, depth: shape.depth) { emit in
            for element in 0..<count { emit(element) }
        } use: {
            received.append($0)
        }
        #expect(received == Array(0..<count))
    }

    /// A slow consumer holds the maker back at `depth` batches instead of letting it read ahead without end.
    @Test func theMakerWaitsForTheConsumer() {
        let made = Counter()
        var seen = 0
        var mostAhead = 0
        ReadAhead<Int>.run(size: 10, depth: 2) { emit in
            for element in 0..<1_000 {
                made.add()
                emit(element)
            }
        } use: { element in
            seen += 1
            mostAhead = max(mostAhead, made.value - seen)
        }
        #expect(seen == 1_000)
        // At most the batches waiting, the one being taken apart and the one being filled.
        #expect(mostAhead <= 10 * (2 + 2))
    }

    final class Counter: Sendable {
        private let count = Mutex(0)
        func add() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }
    }
}
