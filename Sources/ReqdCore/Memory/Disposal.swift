/// Storage the core no longer needs, handed to the daemon to free off the scheduler's queue.
///
/// Letting go of a table sized for a million jobs takes milliseconds: each element is destroyed,
/// and the pages go back to the system with `munmap`. Five hundred emptied shards took 13 ms, the
/// old job order 5 ms (BENCHMARKS.md, "Memory that comes back"). A shrink slice puts what it
/// replaced here instead, and `SchedulerEffect.dispose` carries it out of the turn.
public final class Disposal: @unchecked Sendable {
    // @unchecked Sendable: the core fills it during one turn and never touches it again once the
    // effect is out; from then on only `free()`, on the daemon's disposal queue, touches it.
    private var storage: [Any] = []

    init() {}

    /// Keeps `value` until `free()`.
    func keep(_ value: Any) { storage.append(value) }

    /// Whether nothing is kept.
    var isEmpty: Bool { storage.isEmpty }

    /// Lets go of everything kept, on the caller's thread.
    public func free() { storage = [] }
}
