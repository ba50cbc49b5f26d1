import Dispatch
import NIOCore
import Synchronization

/// The scheduler loop's mailbox, and the rules of its turns.
///
/// Items come from any thread and wait under a `Mutex`; a turn on `queue` takes up to its budget of
/// them at once, so registrations that arrive together share one store batch, and a burst of posts
/// costs one hop to the queue per budget. A caller that wants its items handled at once arrives in
/// one of two ways, told apart by a queue-specific tag as GRDB's `SchedulingWatchdog` does:
///
/// - `.outside`: from any other thread. It runs the turn itself with `queue.sync`.
/// - `.reentrant`: from inside a turn on this queue, when something the turn calls out to calls
///   back (a connection closed by a write hands over its last lines). `queue.sync` would deadlock,
///   and handling them there would disturb the turn's effects half-way, so they are kept and the
///   turn in progress handles them right after its own items, before it ends.
final class Inbox<Item: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `pending` is guarded by its Mutex; `kept` and `inTurn` are touched only on
    // `queue`, inside `runTurn` or by a re-entrant caller (both asserted).

    /// How a caller that wants a turn now arrives.
    enum Arrival: Equatable {
        case outside
        case reentrant
    }

    /// The queue the turns run on.
    let queue: DispatchQueue
    private let pending = Mutex<(items: CircularBuffer<Item>, scheduled: Bool)>(([], false))
    private var kept: [Item] = []
    private var inTurn = false
    /// Set on `queue` only, and unique to this inbox, so another loop's queue does not count.
    private let onQueue = DispatchSpecificKey<Bool>()

    init(queue: DispatchQueue) {
        self.queue = queue
        queue.setSpecific(key: onQueue, value: true)
    }

    /// Adds an item, from any thread. True when it is the first since the last `take()`: the caller
    /// must then schedule a turn.
    func post(_ item: Item) -> Bool {
        pending.withLock { state in
            state.items.append(item)
            defer { state.scheduled = true }
            return !state.scheduled
        }
    }

    /// Items posted and not yet taken.
    var count: Int { pending.withLock { $0.items.count } }

    /// The oldest `max` items posted so far, and whether more are left.
    ///
    /// With nothing left, the next post schedules a turn again. With more left, a turn is still
    /// owed for them, and the caller schedules it.
    func take(max: Int) -> (items: [Item], more: Bool) {
        pending.withLock { state in
            guard state.items.count > max else {
                defer {
                    state.items.removeAll(keepingCapacity: true)
                    state.scheduled = false
                }
                return (Array(state.items), false)
            }
            let items = Array(state.items.prefix(max))
            state.items.removeFirst(max)
            return (items, true)
        }
    }

    /// Tells a caller that wants a turn now whether it comes from outside or from inside a turn.
    func arrival() -> Arrival {
        guard DispatchQueue.getSpecific(key: onQueue) == nil else {
            precondition(inTurn, "the scheduler loop was re-entered on its queue outside a turn")
            return .reentrant
        }
        dispatchPrecondition(condition: .notOnQueue(queue))
        return .outside
    }

    /// Keeps items that arrived re-entrantly, for the turn in progress.
    func keep(_ items: [Item]) {
        dispatchPrecondition(condition: .onQueue(queue))
        precondition(inTurn, "items kept outside a turn would never be handled")
        kept += items
    }

    /// Runs one turn on `queue`: `handle` gets `items`, then, as often as needed, what arrived
    /// re-entrantly while it ran.
    func runTurn(_ items: [Item], _ handle: ([Item]) -> Void) {
        dispatchPrecondition(condition: .onQueue(queue))
        precondition(!inTurn, "a turn started inside another turn")
        inTurn = true
        defer { inTurn = false }
        handle(items)
        while !kept.isEmpty {
            var more: [Item] = []
            swap(&more, &kept)
            handle(more)
        }
    }
}
