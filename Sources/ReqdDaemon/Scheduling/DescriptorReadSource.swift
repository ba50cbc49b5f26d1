import Dispatch
import Glibc

/// A dispatch read source on a descriptor it owns, for the clock and network monitors.
///
/// The descriptor is closed in the source's cancel handler, after the last event handler has run;
/// `cancel()` waits for that, so a stopped daemon has given its descriptors back when `stop()` returns.
final class DescriptorReadSource {
    private let source: any DispatchSourceRead
    private let queue: DispatchQueue
    private let closed = DispatchSemaphore(value: 0)

    /// Starts watching `descriptor`; `onReadable` runs on `queue` each time it can be read.
    init(descriptor: Int32, queue: DispatchQueue, onReadable: @escaping @Sendable () -> Void) {
        self.queue = queue
        source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        source.setEventHandler(handler: onReadable)
        source.setCancelHandler { [closed] in
            close(descriptor)
            closed.signal()
        }
        source.resume()
    }

    /// Stops watching and waits until the descriptor is closed; not from `queue`, where the close runs.
    func cancel() {
        dispatchPrecondition(condition: .notOnQueue(queue))
        guard !source.isCancelled else { return }
        source.cancel()
        closed.wait()
    }

    /// Stops watching without waiting; the descriptor is closed soon after, on `queue`.
    func cancelLater() {
        source.cancel()
    }
}
