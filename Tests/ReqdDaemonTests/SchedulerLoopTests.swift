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

    private static func makeLoop() -> SchedulerLoop {
        var logger = Logger(label: "reqd-test")
        logger.logLevel = .warning
        return SchedulerLoop(configuration: SchedulerConfiguration(), seed: 1, logger: logger, notifier: SystemdNotifier())
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
}
