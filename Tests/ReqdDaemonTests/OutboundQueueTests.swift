import Dispatch
import NIOCore
import NIOEmbedded
import ReqdProtocol
import Synchronization
import Testing

@testable import ReqdDaemon

@Suite("The outbound queue: writes in the scheduler's order, a bounded number of connections per round")
struct OutboundQueueTests {
    /// Stands in for `EventLoopYield`: the rounds left for after the next poll wait here until `poll()`.
    final class Polls: Sendable {
        private let waiting = Mutex<[@Sendable () -> Void]>([])

        func later(_ body: @escaping () -> Void) {
            nonisolated(unsafe) let body = body
            waiting.withLock { $0.append { body() } }
        }

        /// Runs what waited for a poll; false if nothing did.
        func poll() -> Bool {
            let due = waiting.withLock { waiting in defer { waiting = [] }; return waiting }
            for body in due { body() }
            return !due.isEmpty
        }
    }

    private static func reply(_ id: Int64) -> OutboundMessage {
        .response(Response(id: .number(id), outcome: .success(.hello(HelloResult(protocolVersion: 1, server: "reqd", version: "0", uid: 0)))))
    }

    private static func makeQueue(_ loop: EmbeddedEventLoop, _ polls: Polls) -> OutboundQueue {
        OutboundQueue(eventLoop: loop) { polls.later($0) }
    }

    /// The reply ids written to `channel` so far, in the order they were written.
    private static func written(_ channel: EmbeddedChannel) throws -> [Int64] {
        var ids: [Int64] = []
        while let messages = try channel.readOutbound(as: [OutboundMessage].self) {
            for case .response(let response) in messages {
                if case .number(let id) = response.id { ids.append(id) }
            }
        }
        return ids
    }

    @Test("a burst to 200 connections is written 64 connections per round, a poll between rounds, each connection's lines in order")
    func bounded() throws {
        let loop = EmbeddedEventLoop()
        let polls = Polls()
        let channels = (0..<200).map { _ in EmbeddedChannel(loop: loop) }
        let queue = Self.makeQueue(loop, polls)
        for id in 0..<1_000 {
            queue.send([Self.reply(Int64(id))], to: channels[id % 200])
        }
        loop.run()
        var rounds = 1
        var seen = Array(repeating: [Int64](), count: 200)
        while true {
            var connections = 0
            for index in channels.indices {
                let ids = try Self.written(channels[index])
                if !ids.isEmpty { connections += 1 }
                seen[index] += ids
            }
            #expect(connections <= 64, "round \(rounds) wrote to \(connections) connections")
            guard polls.poll() else { break }
            rounds += 1
        }
        #expect(rounds == 4)
        #expect(queue.largestRound == 64)
        for index in channels.indices {
            #expect(seen[index] == Array(stride(from: Int64(index), to: 1_000, by: 200)))
        }
    }

    private static func event(_ watch: Int64) -> OutboundMessage {
        .event(EventMessage(watch: .number(watch), event: JobEvent(type: .tick, job: "c_test", kind: .countdown, key: nil, scope: nil, owner: 0, at: WallTime(nanosecondsSinceEpoch: 0))))
    }

    /// The watch ids of the events written to `channel` so far, in order.
    private static func events(_ channel: EmbeddedChannel) throws -> [Int64] {
        var ids: [Int64] = []
        while let messages = try channel.readOutbound(as: [OutboundMessage].self) {
            for case .event(let event) in messages {
                if case .number(let id) = event.watch { ids.append(id) }
            }
        }
        return ids
    }

    @Test("a reply queued during a burst of 1,000 watchers' events goes out in the next round, not after the burst")
    func repliesFirst() throws {
        let loop = EmbeddedEventLoop()
        let polls = Polls()
        let watchers = (0..<1_000).map { _ in EmbeddedChannel(loop: loop) }
        let prober = EmbeddedChannel(loop: loop)
        let queue = Self.makeQueue(loop, polls)
        for (index, watcher) in watchers.enumerated() { queue.send([Self.event(Int64(index))], to: watcher) }
        loop.run()
        #expect(try watchers.indices.prefix(64).allSatisfy { try Self.events(watchers[$0]) == [Int64($0)] })
        queue.send([Self.reply(-1)], to: prober)
        #expect(try Self.written(prober).isEmpty, "nothing is written past the queue")
        #expect(polls.poll())
        #expect(try Self.written(prober) == [-1], "the reply lane is served first")
        var rounds = 2
        while polls.poll() { rounds += 1 }
        #expect(rounds == 16)
        #expect(try watchers.dropFirst(64).allSatisfy { try Self.events($0).count == 1 })
    }

    @Test("a connection's events and then its reply go out in the order queued, though the reply moves it to the reply lane")
    func laneKeepsOrder() throws {
        let loop = EmbeddedEventLoop()
        let polls = Polls()
        let others = (0..<100).map { _ in EmbeddedChannel(loop: loop) }
        let channel = EmbeddedChannel(loop: loop)
        let queue = Self.makeQueue(loop, polls)
        for other in others { queue.send([Self.event(0)], to: other) }
        queue.send([Self.event(1)], to: channel)
        queue.send([Self.event(2), Self.reply(3)], to: channel)
        queue.send([Self.event(4)], to: channel)
        loop.run()
        var order: [String] = []
        while let messages = try channel.readOutbound(as: [OutboundMessage].self) {
            for message in messages {
                switch message {
                case .event(let event): order.append("event \(event.watch)")
                case .response(let response): order.append("reply \(response.id.map { "\($0)" } ?? "none")")
                }
            }
        }
        #expect(order == ["event 1", "event 2", "reply 3", "event 4"], "written in the first round, in order")
        while polls.poll() {}
        #expect(try others.allSatisfy { try Self.events($0) == [0] })
        #expect(try Self.events(channel).isEmpty, "written once")
    }

    @Test("while 500 connections keep replies waiting, every round still writes 16 connections' events")
    func eventsNotStarved() throws {
        let loop = EmbeddedEventLoop()
        let polls = Polls()
        let talkers = (0..<500).map { _ in EmbeddedChannel(loop: loop) }
        let watchers = (0..<64).map { _ in EmbeddedChannel(loop: loop) }
        let queue = Self.makeQueue(loop, polls)
        for watcher in watchers { queue.send([Self.event(7)], to: watcher) }
        for talker in talkers { queue.send([Self.reply(1)], to: talker) }
        loop.run()
        var perRound: [Int] = []
        repeat {
            perRound.append(try watchers.filter { try !Self.events($0).isEmpty }.count)
            // The talkers written this round ask again, so the reply lane never empties.
            for talker in talkers where try !Self.written(talker).isEmpty { queue.send([Self.reply(1)], to: talker) }
        } while perRound.count < 4 && polls.poll()
        #expect(perRound == [16, 16, 16, 16])
    }

    @Test("lines queued from other threads and from the event loop go out in the order they were queued")
    func orderAcrossThreads() throws {
        let loop = EmbeddedEventLoop()
        let polls = Polls()
        let channel = EmbeddedChannel(loop: loop)
        let queue = Self.makeQueue(loop, polls)
        let other = DispatchQueue(label: "reqd-test.other")
        for id in stride(from: Int64(0), to: 200, by: 2) {
            // As a timer turn would, from another thread; then a turn inline on the event loop.
            other.sync { queue.send([Self.reply(id)], to: channel) }
            queue.send([Self.reply(id + 1)], to: channel)
        }
        loop.run()
        #expect(try Self.written(channel) == Array(0..<200))
    }

    @Test("the owed round runs at once when the handler asks at the end of its turn, and only once")
    func roundNow() throws {
        let loop = EmbeddedEventLoop()
        let polls = Polls()
        let channel = EmbeddedChannel(loop: loop)
        let queue = Self.makeQueue(loop, polls)
        queue.send([Self.reply(1)], to: channel)
        #expect(try Self.written(channel).isEmpty, "nothing is written past the queue")
        queue.roundNow()
        #expect(try Self.written(channel) == [1])
        loop.run()
        #expect(try Self.written(channel).isEmpty, "the queued task found nothing owed")
        #expect(!polls.poll())
    }

    @Test("a send's promise completes once its lines are written")
    func promise() throws {
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(loop: loop)
        let queue = Self.makeQueue(loop, Polls())
        let written = loop.makePromise(of: Void.self)
        let done = Mutex(false)
        written.futureResult.whenSuccess { done.withLock { $0 = true } }
        queue.send([Self.reply(1)], to: channel)
        queue.send([], to: channel, promise: written)
        #expect(!done.withLock { $0 })
        loop.run()
        #expect(done.withLock { $0 })
        #expect(try Self.written(channel) == [1])
    }
}
