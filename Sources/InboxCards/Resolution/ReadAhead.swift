import Dispatch
import Findings
import Synchronization

/// Batches handed from a thread that makes them to one that uses them, at most `depth` waiting: what lets a card
/// walk read, parse and resolve the next messages on one core while the caller checks and writes the cards before
/// them on the other (``CardStream/forEach(_:)``), in bounded memory.
final class ReadAhead<Element: Sendable>: Sendable {
    /// The batches made and not yet taken; `nil` is the end.
    private let queue = Mutex<[[Element]?]>([])
    private let filled = DispatchSemaphore(value: 0)
    private let free: DispatchSemaphore

    init(depth: Int) {
        free = DispatchSemaphore(value: depth)
    }

    /// Hands on `batch` (nil: the end), waiting while `depth` batches wait to be taken.
    func put(_ batch: [Element]?) {
        free.wait()
        queue.withLock { $0.append(batch) }
        filled.signal()
    }

    /// The next batch, waiting for it; nil at the end.
    func take() -> [Element]? {
        filled.wait()
        let batch = queue.withLock { $0.removeFirst() }
        free.signal()
        return batch
    }

    /// Runs `make` on its own thread, handing each batch `make` gives to ``put(_:)`` (a batch is `size` elements,
    /// the last one fewer), while the calling thread hands each element to `use` in order. Without a thread (none
    /// could be started) `make` runs on the calling thread, element by element.
    static func run(
        size: Int, depth: Int, make: @escaping @Sendable (_ emit: (Element) -> Void) -> Void,
        use: (Element) -> Void
    ) {
        let channel = ReadAhead<Element>(depth: depth)
        let status = DetachedThread.start {
            var batch: [Element] = []
            batch.reserveCapacity(size)
            make { element in
                batch.append(element)
                if batch.count == size {
                    channel.put(batch)
                    batch.removeAll(keepingCapacity: true)
                }
            }
            if !batch.isEmpty { channel.put(batch) }
            channel.put(nil)
        }
        guard status == 0 else { return make(use) }
        while let batch = channel.take() {
            for element in batch { use(element) }
        }
    }
}
