import Dispatch
import Foundation
import Logging
import ReqdCore
import ReqdDaemon
import ReqdProtocol
import Synchronization
import Testing

@Suite("The scheduler loop's turns")
struct SchedulerLoopTests {
    /// Records what reaches a connection; on the first reply it calls back into the loop, as a
    /// connection closed by a write would, from inside the turn that is sending.
    final class CallingBackSink: MessageSink {
        let loop: SchedulerLoop
        let connection: ConnectionID
        let record = Mutex<[String]>([])

        init(loop: SchedulerLoop, connection: ConnectionID) {
            self.loop = loop
            self.connection = connection
        }

        func send(_ messages: [OutboundMessage]) {
            for case .response(let response) in messages { record.withLock { $0.append("reply \(response.id!)") } }
            guard record.withLock({ $0 == ["reply 1"] }) else { return }
            loop.handleNow([.request(connection, Request(id: .number(2), body: .status(StatusRequest())))])
            record.withLock { $0.append("call returned") }
        }
    }

    /// Counts the replies that reach a connection.
    final class CountingSink: MessageSink {
        let replies = Mutex(0)

        func send(_ messages: [OutboundMessage]) {
            let count = messages.count { if case .response = $0 { true } else { false } }
            replies.withLock { $0 += count }
        }
    }

    private static func makeLoop(turnBudget: Int = SchedulerLoop.defaultTurnBudget) -> SchedulerLoop {
        var logger = Logger(label: "reqd-test")
        logger.logLevel = .warning
        return SchedulerLoop(
            configuration: SchedulerConfiguration(), seed: 1, logger: logger, notifier: SystemdNotifier(), turnBudget: turnBudget)
    }

    private static func hellos(_ count: Int, on connection: ConnectionID) -> [SchedulerEvent] {
        (0..<count).map { .request(connection, Request(id: .number(Int64($0)), body: .hello(HelloRequest()))) }
    }

    /// A loop with connection 1 open on a `CallingBackSink`.
    private static func connectedLoop() -> (SchedulerLoop, CallingBackSink) {
        let loop = makeLoop()
        let sink = CallingBackSink(loop: loop, connection: ConnectionID(1))
        loop.open(sink.connection, peer: Peer(uid: getuid(), pid: getpid()), sink: sink)
        return (loop, sink)
    }

    @Test("handleNow called back from inside a turn joins that turn: after the call returns, before the turn ends")
    func reentrantHandleNow() {
        let (loop, sink) = Self.connectedLoop()
        defer { loop.stop() }
        loop.handleNow([.request(sink.connection, Request(id: .number(1), body: .hello(HelloRequest())))])
        // No waiting: the outer handleNow returned only once its turn, re-entered part included, was over.
        #expect(sink.record.withLock { $0 } == ["reply 1", "call returned", "reply 2"])
    }

    @Test("events submitted from any thread are handled in a later turn, in order")
    func submittedEvents() {
        let (loop, sink) = Self.connectedLoop()
        defer { loop.stop() }
        #expect(loop.inspect { $0.connectionCount } == 1)
        loop.submit(.connectionClosed(sink.connection))
        #expect(loop.inspect { $0.connectionCount } == 0)
    }

    @Test("a stopped loop drops what arrives later")
    func stopped() {
        let loop = Self.makeLoop()
        loop.stop()
        loop.open(ConnectionID(1), peer: Peer(uid: getuid(), pid: getpid()), sink: CallingBackSink(loop: loop, connection: ConnectionID(1)))
        loop.perform(.networkChanged)
        #expect(loop.inspect { $0.connectionCount } == 0)
        loop.stop()
    }

    @Test("10,000 requests handed over at once are handled a budget per turn, every one answered")
    func handleNowBudget() {
        let loop = Self.makeLoop(turnBudget: 16)
        defer { loop.stop() }
        let sink = CountingSink()
        loop.open(ConnectionID(1), peer: Peer(uid: getuid(), pid: getpid()), sink: sink)
        loop.handleNow(Self.hellos(10_000, on: ConnectionID(1)))
        #expect(sink.replies.withLock { $0 } == 10_000)
        #expect(loop.largestTurn == 16)
    }

    @Test("events posted from other threads wait in the inbox and are handled a budget per turn")
    func postedBudget() {
        let loop = Self.makeLoop(turnBudget: 16)
        defer { loop.stop() }
        let sink = CountingSink()
        loop.open(ConnectionID(1), peer: Peer(uid: getuid(), pid: getpid()), sink: sink)
        // Held on the queue, so all 5,000 are in the inbox before the first turn.
        let posted = DispatchSemaphore(value: 0)
        loop.queue.async { posted.wait() }
        for event in Self.hellos(5_000, on: ConnectionID(1)) { loop.submit(event) }
        posted.signal()
        // Each `inspect` waits for the turns queued before it; later turns queue themselves behind it.
        for _ in 0..<5_000 where sink.replies.withLock({ $0 }) < 5_000 { _ = loop.inspect { _ in true } }
        #expect(sink.replies.withLock { $0 } == 5_000)
        #expect(loop.largestTurn == 16)
    }
}
