import Synchronization

/// A flag one thread sets and others poll, to end bounded loops early.
final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    /// True once `set()` was called.
    var isSet: Bool { flag.load(ordering: .relaxed) }

    /// Tells every loop that polls the flag to stop.
    func set() { flag.store(true, ordering: .relaxed) }
}
