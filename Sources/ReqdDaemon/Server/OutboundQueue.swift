import NIOCore
import Synchronization

/// Every line the daemon writes to its clients, in one queue per event loop, written a bounded
/// number of writes per event-loop task.
///
/// Two promises rest on it.
/// - **Order.** Turns run on the event loop (a socket read's requests), on the timer's queue and on
///   the store's thread, and each queues its lines here before the turn ends, on the scheduler's
///   serial queue. So the lines for one connection go out in the order the scheduler made them,
///   whichever thread ran the turn: a registration's reply before its job's first event, and no
///   event after the `unwatch` reply that ended its stream. The connection handler's own lines
///   (error replies to bad lines, the empty write before a close) queue here too.
/// - **Bounded writes.** A timer turn that ticks 1,000 watchers hands over 1,000 writes at once.
///   Written in one event-loop task they would hold off every socket read, other clients' `status`
///   among them, until the last one is out. A task writes at most `writesPerTask` of them and
///   leaves the rest to a task a little later, so the event loop polls its sockets in between.
final class OutboundQueue: Sendable {
    /// Lines for one channel, and the promise completed once they are written.
    struct Entry: Sendable {
        let channel: any Channel
        let messages: [OutboundMessage]
        let promise: EventLoopPromise<Void>?
    }

    private struct State {
        var entries = CircularBuffer<Entry>()
        /// A task to write `entries` is queued on the event loop.
        var draining = false
        var largestDrain = 0
    }

    /// Writes one task makes at most, when nothing else is said.
    static let defaultWritesPerTask = 64
    /// How long the next task waits, so that the event loop polls its sockets in between (NIO runs
    /// tasks queued by tasks before it polls; a task a little in the future lets it poll first).
    static let yieldDelay = TimeAmount.microseconds(20)

    /// The event loop every channel of this queue runs on.
    let eventLoop: any EventLoop
    /// Writes one event-loop task makes at most.
    let writesPerTask: Int
    private let state = Mutex(State())

    /// The most writes one task has made so far, for tests: never more than `writesPerTask`.
    var largestDrain: Int { state.withLock { $0.largestDrain } }

    /// Creates the queue for the channels of `eventLoop`.
    init(eventLoop: any EventLoop, writesPerTask: Int = OutboundQueue.defaultWritesPerTask) {
        precondition(writesPerTask > 0, "a task must be able to write something")
        self.eventLoop = eventLoop
        self.writesPerTask = writesPerTask
    }

    /// Queues `messages` for `channel` behind everything already queued; safe from any thread.
    ///
    /// `promise` completes once they are written, or fails if the channel has closed.
    func send(_ messages: [OutboundMessage], to channel: any Channel, promise: EventLoopPromise<Void>? = nil) {
        precondition(channel.eventLoop === eventLoop, "a channel's lines go through its own event loop's queue")
        let schedule = state.withLock { state -> Bool in
            state.entries.append(Entry(channel: channel, messages: messages, promise: promise))
            guard !state.draining else { return false }
            state.draining = true
            return true
        }
        if schedule { eventLoop.execute { self.drain() } }
    }

    /// Writes up to `writesPerTask` entries, flushes their channels, and leaves the rest to a later task.
    private func drain() {
        eventLoop.preconditionInEventLoop()
        let (batch, more) = state.withLock { state -> ([Entry], Bool) in
            let count = min(state.entries.count, writesPerTask)
            var batch: [Entry] = []
            batch.reserveCapacity(count)
            for _ in 0..<count { batch.append(state.entries.removeFirst()) }
            state.largestDrain = max(state.largestDrain, count)
            state.draining = !state.entries.isEmpty
            return (batch, state.draining)
        }
        for index in batch.indices {
            let channel = batch[index].channel
            channel.write(batch[index].messages, promise: batch[index].promise)
            // One flush per run of entries for the same channel.
            if index == batch.index(before: batch.endIndex) || batch[index + 1].channel !== channel { channel.flush() }
        }
        if more {
            eventLoop.scheduleTask(in: Self.yieldDelay) { self.drain() }
        }
    }
}
