import NIOCore
import Synchronization

/// Every line the daemon writes to its clients, queued per connection and written a bounded number
/// of connections per event-loop tick, in rotation.
///
/// Two promises rest on it.
/// - **Order.** Turns run on the event loop (a socket read's requests), on the timer's queue and on
///   the store's thread, and each queues its lines here before the turn ends, on the scheduler's
///   serial queue. So the lines for one connection go out in the order the scheduler made them,
///   whichever thread ran the turn: a registration's reply before its job's first event, and no
///   event after the `unwatch` reply that ended its stream. The connection handler's own lines
///   (error replies to bad lines, the empty write before a close) queue here too.
/// - **Bounded writes.** A timer turn that ticks 1,000 watchers hands over 1,000 writes at once.
///   Written in one go they would hold off every socket read, and every other client's reply
///   queued behind them. A round writes the queued lines of at most `connectionsPerRound`
///   connections (all of each one's, in one flush), and leaves the rest to a round after the event
///   loop's next poll. A connection whose lines arrive meanwhile joins the rotation's end, so a
///   `status` reply waits for at most one round of other connections' writes, not for all of them.
final class OutboundQueue: Sendable {
    /// Lines for one channel, and the promise completed once they are written.
    struct Entry: Sendable {
        let messages: [OutboundMessage]
        let promise: EventLoopPromise<Void>?
    }

    private struct Pending {
        let channel: any Channel
        var entries: [Entry]
    }

    private struct State {
        /// The connections with lines waiting, by channel.
        var pending: [ObjectIdentifier: Pending] = [:]
        /// The keys of `pending`, in the order their connections will be written.
        var rotation = CircularBuffer<ObjectIdentifier>()
        /// A round is queued on the event loop.
        var draining = false
        var largestRound = 0
    }

    /// Connections one round writes at most, when nothing else is said.
    static let defaultConnectionsPerRound = 64

    /// The event loop every channel of this queue runs on.
    let eventLoop: any EventLoop
    /// Connections one round writes at most.
    let connectionsPerRound: Int
    /// Lines queued on the event loop while nothing waits are written at once.
    private let writesInlineWhenIdle: Bool
    /// Runs a round after the event loop's next poll (`EventLoopYield.next`).
    private let afterNextPoll: @Sendable (@escaping () -> Void) -> Void
    private let state = Mutex(State())

    /// The most connections one round has written so far, for tests: never more than `connectionsPerRound`.
    var largestRound: Int { state.withLock { $0.largestRound } }

    /// Creates the queue for the channels of `eventLoop`; `afterNextPoll` runs its argument on the
    /// loop once the loop has polled its sockets again.
    ///
    /// With `writesInlineWhenIdle`, lines queued on the event loop itself while no line waits are
    /// written at once, as the turn that made them ends: nothing can be ahead of them, and a
    /// client's round trip saves a task (about 15% of a one-client round trip on the benchmark
    /// machine). Tests on an `EmbeddedEventLoop`, which is always "in" its loop, turn it off.
    init(
        eventLoop: any EventLoop, connectionsPerRound: Int = OutboundQueue.defaultConnectionsPerRound,
        writesInlineWhenIdle: Bool = true, afterNextPoll: @escaping @Sendable (@escaping () -> Void) -> Void
    ) {
        precondition(connectionsPerRound > 0, "a round must be able to write something")
        self.eventLoop = eventLoop
        self.connectionsPerRound = connectionsPerRound
        self.writesInlineWhenIdle = writesInlineWhenIdle
        self.afterNextPoll = afterNextPoll
    }

    /// Queues `messages` for `channel` behind everything already queued for it; safe from any thread.
    ///
    /// `promise` completes once they are written, or fails if the channel has closed.
    func send(_ messages: [OutboundMessage], to channel: any Channel, promise: EventLoopPromise<Void>? = nil) {
        precondition(channel.eventLoop === eventLoop, "a channel's lines go through its own event loop's queue")
        let key = ObjectIdentifier(channel)
        let entry = Entry(messages: messages, promise: promise)
        let onLoop = writesInlineWhenIdle && eventLoop.inEventLoop
        let next = state.withLock { state -> Next in
            if onLoop, state.rotation.isEmpty { return .writeNow }
            if state.pending[key]?.entries.append(entry) == nil {
                state.pending[key] = Pending(channel: channel, entries: [entry])
                state.rotation.append(key)
            }
            guard !state.draining else { return .nothing }
            state.draining = true
            return .scheduleRound
        }
        switch next {
        case .writeNow:
            channel.writeAndFlush(messages, promise: promise)
        case .scheduleRound:
            eventLoop.execute { self.round() }
        case .nothing:
            break
        }
    }

    private enum Next {
        case writeNow
        case scheduleRound
        case nothing
    }

    /// Writes the lines of up to `connectionsPerRound` connections, each in one flush, and leaves
    /// the rest to a round after the next poll.
    private func round() {
        eventLoop.preconditionInEventLoop()
        let (batch, more) = state.withLock { state -> ([Pending], Bool) in
            let count = min(state.rotation.count, connectionsPerRound)
            var batch: [Pending] = []
            batch.reserveCapacity(count)
            for _ in 0..<count {
                if let pending = state.pending.removeValue(forKey: state.rotation.removeFirst()) { batch.append(pending) }
            }
            state.largestRound = max(state.largestRound, count)
            state.draining = !state.rotation.isEmpty
            return (batch, state.draining)
        }
        for pending in batch {
            for entry in pending.entries { pending.channel.write(entry.messages, promise: entry.promise) }
            pending.channel.flush()
        }
        if more { afterNextPoll { self.round() } }
    }
}
