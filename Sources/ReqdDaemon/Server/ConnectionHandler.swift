import CSystemd
import Foundation
import Logging
import NIOCore
import ReqdCore
import ReqdProtocol
import Synchronization

/// Decodes one client's request lines and hands them to the scheduler loop, a socket read at a time.
///
/// Lines arrive whole from `LineFrameDecoder` and wait here. At the end of a read a turn's budget of
/// them (`SchedulerLoop.turnBudget`) is decoded and handed over: one scheduler turn, whose replies
/// queue in the `OutboundQueue` as one write. What is left of the read waits for the event loop's
/// next poll (`EventLoopYield`), so the other connections' reads come in between, one budget each,
/// and so do the turns queued meanwhile (a due timer's among them). This connection reads nothing
/// more until it is all handed over: a client that pipelines thousands of requests gets them
/// served a budget per poll, in rotation with the others, and pushes back on its own socket.
/// Bad input gets an error reply on this connection only, queued behind the replies to the lines
/// before it; nothing reaches the scheduler and the connection stays open.
///
/// It also sees every line the loop sends (it sits at the tail of the pipeline), to keep
/// `ConnectionActivity`. Once the client has closed its write side and nothing is owed any more, it
/// closes the connection after the last line is written.
final class ConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = LineFramer.Frame
    typealias OutboundIn = [OutboundMessage]
    typealias OutboundOut = [OutboundMessage]

    private static let nextID = Atomic<UInt64>(1)
    /// The most requests of one connection in progress at once (handed over, reply not yet
    /// written): past it, its lines wait unread until replies go out. Replies a job's end or the
    /// store holds back (`wait`, a `list` in slices, `status` with attempts) cost no bytes on
    /// the socket, so `socket.max_pending_bytes` alone would let a client pile them up.
    static let maxInProgress = 4_096

    private let loop: SchedulerLoop
    private let outbound: OutboundQueue
    private let yield: EventLoopYield
    private let quota: ConnectionQuota
    /// The uid `quota` counted this connection for, until it closes.
    private var counted: UInt32?
    private let logger: Logger
    private let maxLineBytes: Int
    private let decoder = RequestDecoder()
    private let connection = ConnectionID(ConnectionHandler.nextID.wrappingAdd(1, ordering: .relaxed).oldValue)
    private var opened = false
    /// Lines read and not yet handed over, oldest first.
    private var frames = CircularBuffer<LineFramer.Frame>()
    /// A task to hand over more of `frames` is queued on the event loop.
    private var continuing = false
    /// A read was asked for while lines waited; it is passed on once they are handed over.
    private var readHeld = false
    private var activity = ConnectionActivity()
    private var inputClosed = false
    private var closing = false

    init(
        loop: SchedulerLoop, outbound: OutboundQueue, yield: EventLoopYield, quota: ConnectionQuota, maxLineBytes: Int,
        logger: Logger
    ) {
        self.loop = loop
        self.outbound = outbound
        self.yield = yield
        self.quota = quota
        self.logger = logger
        self.maxLineBytes = maxLineBytes
    }

    func channelActive(context: ChannelHandlerContext) {
        let channel = context.channel
        guard let provider = channel as? any SocketOptionProvider else {
            context.close(promise: nil)
            return
        }
        let credentials: EventLoopFuture<reqd_ucred> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(reqd_so_peercred()))
        credentials.assumeIsolated().whenComplete { result in
            guard case .success(let credentials) = result else {
                self.logger.warning("could not read peer credentials; closing the connection")
                context.close(promise: nil)
                return
            }
            let peer = Peer(uid: credentials.uid, pid: credentials.pid)
            if let refusal = self.quota.admit(peer.uid) {
                self.refuse(refusal, context: context)
                return
            }
            self.counted = peer.uid
            self.opened = true
            self.loop.open(self.connection, peer: peer, sink: ChannelSink(channel: channel, outbound: self.outbound))
            self.logger.debug(
                "client connected",
                metadata: ["conn.id": "\(self.connection.rawValue)", "peer.uid": "\(peer.uid)", "peer.pid": "\(peer.pid)"])
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard opened else { return }
        frames.append(unwrapInboundIn(data))
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        handOverBudget(context: context)
        context.fireChannelReadComplete()
    }

    /// Reads on only once the waiting lines are handed over and the client has taken its replies
    /// down below `socket.max_pending_bytes`: a client that sends requests without reading the
    /// replies stops itself, and its replies never pile up here.
    func read(context: ChannelHandlerContext) {
        guard frames.isEmpty, context.channel.isWritable, activity.unanswered < Self.maxInProgress else {
            readHeld = true
            return
        }
        context.read()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, !continuing {
            handOverBudget(context: context)
            closeIfDone(context: context)
        }
        context.fireChannelWritabilityChanged()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event as? ChannelEvent == .inputClosed {
            // The decoder has passed on the unterminated last line, if any; no read-complete follows.
            inputClosed = true
            handOverBudget(context: context)
            closeIfDone(context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        // What the client sent before it closed still counts (a last `cancel`), cap or not.
        while !frames.isEmpty { handOver(context: context, capped: false) }
        if let uid = counted {
            counted = nil
            quota.release(uid)
        }
        if opened {
            opened = false
            loop.submit(.connectionClosed(connection))
            logger.debug("client disconnected", metadata: ["conn.id": "\(connection.rawValue)"])
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("connection error: \(error)", metadata: ["conn.id": "\(connection.rawValue)"])
        context.close(promise: nil)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let messages = unwrapOutboundIn(data)
        for index in messages.indices { activity.wrote(messages[index]) }
        context.write(data, promise: promise)
    }

    func flush(context: ChannelHandlerContext) {
        context.flush()
        if activity.unanswered < Self.maxInProgress, !frames.isEmpty || readHeld, !continuing {
            // Replies went out below the cap: the lines held for it go on, after this write.
            continuing = true
            yield.next {
                self.continuing = false
                self.handOverBudget(context: context)
                self.closeIfDone(context: context)
            }
        }
        closeIfDone(context: context)
    }

    /// Hands over one budget of the waiting lines; when more wait, the next budget follows the event
    /// loop's next poll of its sockets (`EventLoopYield`). Once none wait, a held read goes out.
    /// Nothing is handed over while the client has more than `socket.max_pending_bytes` unread:
    /// the lines wait, unanswered, until it reads (`channelWritabilityChanged`).
    private func handOverBudget(context: ChannelHandlerContext) {
        guard context.channel.isWritable else { return }
        handOver(context: context)
        if !frames.isEmpty {
            // At the cap, the write of a reply brings the next budget (`flush`).
            guard !continuing, activity.unanswered < Self.maxInProgress else { return }
            continuing = true
            yield.next {
                self.continuing = false
                self.handOverBudget(context: context)
                self.closeIfDone(context: context)
            }
        } else if readHeld, context.channel.isWritable, activity.unanswered < Self.maxInProgress {
            readHeld = false
            context.read()
        }
    }

    /// Decodes up to one turn's budget of the waiting lines (fewer at the cap on requests in
    /// progress, unless `capped` is false) and hands their requests to the loop;
    /// a line that is not a request gets its error reply queued after the replies of the lines before
    /// it. Then the owed round of writes goes out at once (`OutboundQueue.roundNow()`).
    ///
    /// Lines are taken out one at a time: a write can close the connection, and `channelInactive`
    /// then hands over whatever is left from inside this loop.
    private func handOver(context: ChannelHandlerContext, capped: Bool = true) {
        guard !frames.isEmpty else { return }
        var requests: [SchedulerEvent] = []
        var taken = 0
        while taken < loop.turnBudget, !capped || activity.unanswered < Self.maxInProgress, let frame = frames.popFirst() {
            taken += 1
            let failure: Response
            switch frame {
            case .oversized:
                failure = Response(id: nil, outcome: .failure(WireErrorMapping.lineTooLong(limit: maxLineBytes)))
            case .line(let bytes):
                switch decoder.decode(bytes) {
                case .success(let request):
                    activity.handedOver(request)
                    requests.append(.request(connection, request))
                    continue
                case .failure(let error):
                    failure = Response(id: error.id, outcome: .failure(error.error))
                }
            }
            if !requests.isEmpty {
                loop.handleNow(requests)
                requests.removeAll()
            }
            activity.refused(failure.id)
            outbound.send([.response(failure)], to: context.channel)
        }
        if !requests.isEmpty { loop.handleNow(requests) }
        outbound.roundNow()
    }

    /// Answers a connection the quota refuses with one error line, then closes it; nothing it sends is read.
    private func refuse(_ error: WireError, context: ChannelHandlerContext) {
        closing = true
        logger.notice("refused a connection: \(error.message)", metadata: ["conn.id": "\(connection.rawValue)", "error.code": "\(error.code.rawValue)"])
        let written = context.eventLoop.makePromise(of: Void.self)
        let refusal = Response(id: nil, outcome: .failure(error))
        outbound.send([.response(refusal)], to: context.channel, promise: written)
        outbound.roundNow()
        written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    /// Closes the connection once the client has ended its input and nothing more is owed, after
    /// everything written so far has gone out (closing at once would drop unwritten lines).
    private func closeIfDone(context: ChannelHandlerContext) {
        guard inputClosed, !closing, frames.isEmpty, activity.isIdle else { return }
        closing = true
        let written = context.eventLoop.makePromise(of: Void.self)
        outbound.send([], to: context.channel, promise: written)
        written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}
