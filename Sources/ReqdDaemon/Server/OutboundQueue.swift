import NIOCore
import Synchronization

/// Every line the daemon writes to its clients, queued per connection and written a bounded number
/// of connections per round, a round per poll of the event loop.
///
/// Two promises rest on it.
/// - **Order.** Turns run on the event loop (a socket read's requests), on the timer's queue and on
///   the store's thread, and each queues its lines here before the turn ends, on the scheduler's
///   serial queue. So the lines for one connection go out in the order the scheduler made them,
///   whichever thread ran the turn: a registration's reply before its job's first event, and no
///   event after the `unwatch` reply that ended its stream. The connection handler's own lines
///   (error replies to bad lines, the empty write before a close) queue here too. Nothing is ever
///   written past the queue.
/// - **Bounded writes.** A timer turn that ticks 1,000 watchers hands over 1,000 writes at once.
///   Written in one go they would hold off every socket read until the last one is out. A round
///   writes the queued lines of at most `connectionsPerRound` connections (all of each one's, in one
///   flush) and leaves the rest to a round after the event loop's next poll, so other clients'
///   requests are read, and their turns run, between rounds.
/// - **Replies first.** A connection with a reply waiting joins the reply lane, which a round
///   serves before the event lane; in each lane connections are written in the order their lines
///   first waited. So a `status` reply queued behind 1,000 watchers' ticks goes out in the next
///   round, not after 16 of them. A round keeps a quarter of its connections for the event lane
///   while events wait, so steady replies cannot starve watchers. A connection's own lines stay in
///   order: the lane decides when a connection is written, never the order within it.
///
/// The first round after lines arrive runs as a task on the loop, or at once when the connection
/// handler asks for it at the end of its turn (`roundNow()`), so a round trip costs no extra hop.
final class OutboundQueue: Sendable {
    /// Lines for one channel, and the promise completed once they are written.
    struct Entry: Sendable {
        let messages: [OutboundMessage]
        let promise: EventLoopPromise<Void>?
    }

    /// The two rotations a connection with lines waiting can be in.
    fileprivate enum Lane {
        case replies
        case events
    }

    fileprivate struct Pending {
        let channel: any Channel
        var entries: [Entry]
        /// The lane whose rotation holds this connection's live key; a key left in the other lane
        /// (the connection moved to the reply lane) is skipped.
        var lane: Lane
    }

    /// Where the rounds stand.
    fileprivate enum Phase {
        /// Nothing waits.
        case idle
        /// Lines wait, and a task for a round is queued on the loop (`roundNow()` may run it first).
        case owed
        /// A round is writing.
        case writing
        /// Lines wait for the round after the next poll.
        case afterPoll
    }

    fileprivate struct State {
        /// The connections with lines waiting, by channel.
        var pending: [ObjectIdentifier: Pending] = [:]
        /// Keys of connections with a reply waiting, in the order they will be written.
        var replies = CircularBuffer<ObjectIdentifier>()
        /// Keys of the other connections with lines waiting, in the order they will be written.
        var events = CircularBuffer<ObjectIdentifier>()
        /// How many connections with lines waiting are in the event lane.
        var eventConnections = 0
        var phase = Phase.idle
        var largestRound = 0
    }

    /// Connections one round writes at most, when nothing else is said.
    static let defaultConnectionsPerRound = 64

    /// The event loop every channel of this queue runs on.
    let eventLoop: any EventLoop
    /// Connections one round writes at most.
    let connectionsPerRound: Int
    /// Runs a round after the event loop's next poll (`EventLoopYield.next`).
    private let afterNextPoll: @Sendable (@escaping () -> Void) -> Void
    private let state = Mutex(State())

    /// The most connections one round has written so far, for tests: never more than `connectionsPerRound`.
    var largestRound: Int { state.withLock { $0.largestRound } }

    /// Creates the queue for the channels of `eventLoop`; `afterNextPoll` runs its argument on the
    /// loop once the loop has polled its sockets again.
    init(
        eventLoop: any EventLoop, connectionsPerRound: Int = OutboundQueue.defaultConnectionsPerRound,
        afterNextPoll: @escaping @Sendable (@escaping () -> Void) -> Void
    ) {
        precondition(connectionsPerRound > 0, "a round must be able to write something")
        self.eventLoop = eventLoop
        self.connectionsPerRound = connectionsPerRound
        self.afterNextPoll = afterNextPoll
    }

    /// Queues `messages` for `channel` behind everything already queued for it; safe from any thread.
    ///
    /// `promise` completes once they are written, or fails if the channel has closed.
    func send(_ messages: [OutboundMessage], to channel: any Channel, promise: EventLoopPromise<Void>? = nil) {
        precondition(channel.eventLoop === eventLoop, "a channel's lines go through its own event loop's queue")
        let key = ObjectIdentifier(channel)
        let entry = Entry(messages: messages, promise: promise)
        let hasReply = messages.contains { if case .response = $0 { true } else { false } }
        let schedule = state.withLock { state -> Bool in
            state.queue(entry, for: key, channel: channel, hasReply: hasReply)
            guard state.phase == .idle else { return false }
            state.phase = .owed
            return true
        }
        if schedule { eventLoop.execute { self.round(from: .owed) } }
    }

    /// Runs the owed round now, if one is owed; call on the loop, outside any round.
    func roundNow() {
        round(from: .owed)
    }

    /// Writes the lines of up to `connectionsPerRound` connections, each in one flush, if the
    /// rounds stand at `expected`; what is left waits for a round after the next poll.
    private func round(from expected: Phase) {
        eventLoop.preconditionInEventLoop()
        let batch = state.withLock { state -> [Pending]? in
            guard state.phase == expected else { return nil }
            state.phase = .writing
            let batch = state.takeRound(connectionsPerRound)
            state.largestRound = max(state.largestRound, batch.count)
            return batch
        }
        guard let batch else { return }
        // A write can close a channel, and what that sets off (its last reads, a turn) may queue
        // lines here: they wait in the rotation, behind what this round writes.
        for pending in batch {
            for entry in pending.entries { pending.channel.write(entry.messages, promise: entry.promise) }
            pending.channel.flush()
        }
        let more = state.withLock { state -> Bool in
            state.phase = state.pending.isEmpty ? .idle : .afterPoll
            return state.phase == .afterPoll
        }
        if more { afterNextPoll { self.round(from: .afterPoll) } }
    }
}

extension OutboundQueue.State {
    /// Queues `entry` behind `channel`'s lines; a reply moves the connection to the reply lane.
    fileprivate mutating func queue(_ entry: OutboundQueue.Entry, for key: ObjectIdentifier, channel: any Channel, hasReply: Bool) {
        guard var waiting = pending[key] else {
            pending[key] = .init(channel: channel, entries: [entry], lane: hasReply ? .replies : .events)
            if hasReply { replies.append(key) } else { events.append(key); eventConnections += 1 }
            return
        }
        waiting.entries.append(entry)
        if hasReply, waiting.lane == .events {
            waiting.lane = .replies
            eventConnections -= 1
            replies.append(key)
        }
        pending[key] = waiting
    }

    /// Takes up to `limit` connections for a round: replies first, with a quarter of the round
    /// kept for events while any wait.
    fileprivate mutating func takeRound(_ limit: Int) -> [OutboundQueue.Pending] {
        let keptForEvents = min(eventConnections, limit / 4)
        var batch: [OutboundQueue.Pending] = []
        batch.reserveCapacity(min(limit, pending.count))
        take(from: .replies, upTo: limit - keptForEvents, into: &batch)
        take(from: .events, upTo: limit, into: &batch)
        take(from: .replies, upTo: limit, into: &batch)
        return batch
    }

    private mutating func take(from lane: OutboundQueue.Lane, upTo limit: Int, into batch: inout [OutboundQueue.Pending]) {
        while batch.count < limit, let key = lane == .replies ? replies.popFirst() : events.popFirst() {
            guard let waiting = pending[key], waiting.lane == lane else { continue }
            pending[key] = nil
            if lane == .events { eventConnections -= 1 }
            batch.append(waiting)
        }
    }
}
