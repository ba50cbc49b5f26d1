import CSystemd
import Foundation
import Logging
import NIOCore
import ReqdCore
import ReqdProtocol
import Synchronization

/// Decodes one client's request lines and hands them to the scheduler loop, a socket read at a time.
///
/// Lines arrive whole from `LineFrameDecoder`. Each is decoded as it comes, and the requests of one
/// read are handed over together in `channelReadComplete`: one scheduler turn, whose replies leave in
/// one write. Bad input gets an error reply on this connection only; nothing reaches the scheduler
/// and the connection stays open.
///
/// It also sees every line the loop sends (it sits at the tail of the pipeline), to keep
/// `ConnectionActivity`. Once the client has closed its write side and nothing is owed any more, it
/// closes the connection after the last line is written.
final class ConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = LineFramer.Frame
    typealias OutboundIn = [OutboundMessage]
    typealias OutboundOut = [OutboundMessage]

    private static let nextID = Atomic<UInt64>(1)

    private let loop: SchedulerLoop
    private let logger: Logger
    private let maxLineBytes: Int
    private let decoder = RequestDecoder()
    private let connection = ConnectionID(ConnectionHandler.nextID.wrappingAdd(1, ordering: .relaxed).oldValue)
    private var opened = false
    /// The requests and error replies of the current read, not yet handed over.
    private var requests: [SchedulerEvent] = []
    private var errors: [OutboundMessage] = []
    private var activity = ConnectionActivity()
    private var inputClosed = false
    private var closing = false

    init(loop: SchedulerLoop, maxLineBytes: Int, logger: Logger) {
        self.loop = loop
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
            self.opened = true
            self.loop.open(self.connection, peer: peer, sink: ChannelSink(channel: channel))
            self.logger.debug(
                "client connected",
                metadata: ["conn.id": "\(self.connection.rawValue)", "peer.uid": "\(peer.uid)", "peer.pid": "\(peer.pid)"])
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard opened else { return }
        switch unwrapInboundIn(data) {
        case .oversized:
            errors.append(.response(Response(id: nil, outcome: .failure(WireErrorMapping.lineTooLong(limit: maxLineBytes)))))
        case .line(let bytes):
            switch decoder.decode(bytes) {
            case .success(let request):
                activity.handedOver(request)
                requests.append(.request(connection, request))
            case .failure(let failure):
                errors.append(.response(Response(id: failure.id, outcome: .failure(failure.error))))
            }
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        handOver(context: context)
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event as? ChannelEvent == .inputClosed {
            // The decoder has passed on the unterminated last line, if any; no read-complete follows.
            inputClosed = true
            handOver(context: context)
            closeIfDone(context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        handOver(context: context)
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
        closeIfDone(context: context)
    }

    /// Hands the current read's requests to the loop (one turn) and writes its error replies.
    ///
    /// Each list is swapped out before it is used: the turn writes replies through this pipeline, and
    /// a connection closed meanwhile (a client that stopped reading) comes back here from `channelInactive`.
    private func handOver(context: ChannelHandlerContext) {
        if !requests.isEmpty {
            var batch: [SchedulerEvent] = []
            swap(&batch, &requests)
            loop.handleNow(batch)
        }
        if !errors.isEmpty {
            var batch: [OutboundMessage] = []
            swap(&batch, &errors)
            // Written from this handler's own context, they pass by its `write`: `activity` never
            // counted them as owed, so they do not count down the replies the scheduler owes.
            context.writeAndFlush(wrapOutboundOut(batch), promise: nil)
        }
    }

    /// Closes the connection once the client has ended its input and nothing more is owed, after
    /// everything written so far has gone out (closing at once would drop unwritten lines).
    private func closeIfDone(context: ChannelHandlerContext) {
        guard inputClosed, !closing, activity.isIdle else { return }
        closing = true
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut([]), promise: written)
        written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}
