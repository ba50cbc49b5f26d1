import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import ReqdCore
import Synchronization

/// Learns which address each attempt was sent to, for the attempt log, and holds each attempt of
/// a rate-limited target to its rate at the moment it is written (`WirePacer`).
///
/// AsyncHTTPClient does not say which pooled connection carried a request, nor when it wrote it.
/// So each request carries a private header naming its attempt (`header`), and a handler in every
/// connection's pipeline takes that header out before the request is encoded, noting the
/// connection's peer and, for a target with a `rate`, holding the request back when writing it now
/// would overfill the target's bucket. The header never reaches the wire. Through the target gate
/// the peer is the gate itself; the gate says which address the tunnel behind that connection
/// reached (`TargetGate.upstream(forClientPort:)`).
///
/// An attempt is noted only between `expect` and `take`: a head written after its attempt was
/// aborted and taken leaves nothing behind.
final class AttemptAddressRecorder: Sendable {
    /// The private header that names an attempt between the executor and the handler.
    static let header = HTTPHeader.attemptTag

    /// An attempt on its way.
    private struct Expected {
        /// "" until a connection carried the attempt, then its address.
        var address = ""
        /// The rate its first head is held to; nil once that head went (a redirect's is not counted again).
        var pace: WirePace?
    }

    /// The attempts on their way, by tag, and the targets' buckets over their writes.
    private let state = Mutex<(expected: [String: Expected], pacer: WirePacer)>(([:], WirePacer()))
    private let gate: TargetGate?
    /// The clock writes are paced on, in nanoseconds: the event loops' own.
    private let clock: @Sendable () -> Int64

    init(gate: TargetGate?, clock: @escaping @Sendable () -> Int64 = { Int64(NIODeadline.now().uptimeNanoseconds) }) {
        self.gate = gate
        self.clock = clock
    }

    /// The tag a request for `job`'s attempt carries.
    static func tag(job: String, attempt: UInt32) -> String { "\(job) \(attempt)" }

    /// Starts noting where the attempt tagged `tag` goes, holding its head to `pace` when it has one.
    func expect(_ tag: String, pace: WirePace? = nil) {
        state.withLock { $0.expected[tag] = Expected(pace: pace) }
    }

    /// The address the attempt tagged `tag` went to, if a connection carried it; it is forgotten.
    func take(_ tag: String) -> String? {
        let address = state.withLock { $0.expected.removeValue(forKey: tag) }?.address
        return address?.isEmpty == false ? address : nil
    }

    /// Puts the handler in a connection's (or an HTTP/2 stream's) pipeline, just before the
    /// response decompressor that AsyncHTTPClient places before its own request handler, so the
    /// handler sees each request head before it is encoded. The decompressor is always there:
    /// `HTTPExecutor.clientConfiguration` always turns decompression on, and without it every
    /// connection would fail here rather than let a tag reach the wire.
    func install(on channel: any Channel) -> EventLoopFuture<Void> {
        channel.eventLoop.makeCompletedFuture {
            let sync = channel.pipeline.syncOperations
            let decompressor = try sync.context(handlerType: NIOHTTPResponseDecompressor.self)
            try sync.addHandler(Handler(recorder: self), position: .before(decompressor.handler))
        }
    }

    /// Notes where the head of the attempt tagged `tag` goes, on `channel`; the nanoseconds the
    /// head must wait before it is written, 0 when it may go now.
    fileprivate func writing(_ tag: String, channel: any Channel) -> Int64 {
        let address = self.address(of: channel)
        let now = clock()
        return state.withLock { state -> Int64 in
            guard var expected = state.expected[tag] else { return 0 }
            if let address { expected.address = address }
            let at = expected.pace.map { state.pacer.reserve($0, at: now) } ?? now
            expected.pace = nil
            state.expected[tag] = expected
            return at - now
        }
    }

    /// The address `channel` writes to: its connection's peer, or, through the gate, the target
    /// the gate's tunnel reached.
    private func address(of channel: any Channel) -> String? {
        let connection = channel.parent ?? channel
        guard let remote = connection.remoteAddress else { return nil }
        if let gate, remote.port == gate.port, let local = connection.localAddress?.port, let upstream = gate.upstream(forClientPort: local) {
            return upstream
        }
        return remote.hostPortText
    }

    /// Takes the attempt header out of each request head and notes where the head goes; a head
    /// that must wait for its target's bucket is held, with every write after it on the channel,
    /// until its instant comes.
    private final class Handler: ChannelOutboundHandler, RemovableChannelHandler {
        typealias OutboundIn = HTTPClientRequestPart
        typealias OutboundOut = HTTPClientRequestPart

        private let recorder: AttemptAddressRecorder
        /// The writes held behind a head that waits, in order; nil while nothing is held.
        private var held: [(data: NIOAny, promise: EventLoopPromise<Void>?)]?
        /// Whether a flush came while writes were held.
        private var heldFlush = false
        private var release: Scheduled<Void>?

        init(recorder: AttemptAddressRecorder) {
            self.recorder = recorder
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            if held != nil {
                held?.append((data, promise))
                return
            }
            guard case .head(var head) = unwrapOutboundIn(data), let tag = head.headers.first(name: AttemptAddressRecorder.header) else {
                return context.write(data, promise: promise)
            }
            let wait = recorder.writing(tag, channel: context.channel)
            head.headers.remove(name: AttemptAddressRecorder.header)
            let out = wrapOutboundOut(.head(head))
            guard wait > 0 else { return context.write(out, promise: promise) }
            held = [(out, promise)]
            release = context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(wait)) { [self] in
                self.releaseHeld(context: context)
            }
        }

        /// Flushes what went before a held head; the held writes are flushed when they go.
        func flush(context: ChannelHandlerContext) {
            if held != nil { heldFlush = true }
            context.flush()
        }

        func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
            // A half-close of the input leaves the connection writing: what is held still goes.
            if mode != .input { failHeld(ChannelError.ioOnClosedChannel) }
            context.close(mode: mode, promise: promise)
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            failHeld(ChannelError.ioOnClosedChannel)
        }

        /// Writes the head whose instant came, then takes the writes held behind it as they
        /// come (another head among them may have to wait in its turn), and the flush.
        private func releaseHeld(context: ChannelHandlerContext) {
            guard var writes = held, !writes.isEmpty else { return }
            held = nil
            release = nil
            let flush = heldFlush
            heldFlush = false
            let head = writes.removeFirst()
            context.write(head.data, promise: head.promise)
            for (data, promise) in writes { write(context: context, data: data, promise: promise) }
            if flush { self.flush(context: context) }
        }

        /// Drops what was held, failing its writes: the channel is going.
        private func failHeld(_ error: any Error) {
            release?.cancel()
            release = nil
            guard let writes = held else { return }
            held = nil
            heldFlush = false
            for (_, promise) in writes { promise?.fail(error) }
        }
    }
}
