import CSystemd
import Foundation
import Logging
import NIOCore
import ReqdCore
import ReqdProtocol
import Synchronization

/// Reads NDJSON request lines from one client, decodes them and hands them to the scheduler loop.
///
/// Bad input gets an error reply on this connection only; nothing reaches the scheduler and the
/// connection stays open. Lines over the limit are dropped without being buffered whole.
final class ConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = [OutboundMessage]

    private static let nextID = Atomic<UInt64>(1)

    private let loop: SchedulerLoop
    private let logger: Logger
    private var framer: LineFramer
    private let decoder = RequestDecoder()
    private let connection = ConnectionID(ConnectionHandler.nextID.wrappingAdd(1, ordering: .relaxed).oldValue)
    private var opened = false
    private var frames: [LineFramer.Frame] = []

    init(loop: SchedulerLoop, maxLineBytes: Int, logger: Logger) {
        self.loop = loop
        self.logger = logger
        framer = LineFramer(maxLineBytes: maxLineBytes)
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
        let buffer = unwrapInboundIn(data)
        guard opened else { return }
        frames.removeAll(keepingCapacity: true)
        framer.append(buffer.readableBytesView, into: &frames)
        var errors: [OutboundMessage] = []
        var requests: [SchedulerEvent] = []
        for frame in frames {
            switch frame {
            case .oversized:
                errors.append(.response(Response(id: nil, outcome: .failure(WireErrorMapping.lineTooLong(limit: framer.maxLineBytes)))))
            case .line(let bytes):
                switch decoder.decode(bytes) {
                case .success(let request):
                    requests.append(.request(connection, request))
                case .failure(let failure):
                    errors.append(.response(Response(id: failure.id, outcome: .failure(failure.error))))
                }
            }
        }
        if !requests.isEmpty {
            loop.handleNow(requests)
        }
        if !errors.isEmpty {
            context.writeAndFlush(wrapOutboundOut(errors), promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
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
}

/// Sends a connection's outbound lines through its channel, from any thread.
struct ChannelSink: MessageSink {
    let channel: any Channel

    func send(_ messages: [OutboundMessage]) {
        channel.writeAndFlush(messages, promise: nil)
    }
}

/// Encodes outbound messages as JSON lines, and drops a client that stops reading.
///
/// A watcher that never reads would make the daemon buffer its events without bound; once a
/// connection's unwritten output passes `socket.max_pending_bytes` (the channel stops being
/// writable) the connection is closed, and only that client loses its stream.
final class MessageEncoder: ChannelOutboundHandler {
    typealias OutboundIn = [OutboundMessage]
    typealias OutboundOut = ByteBuffer

    private let encoder = CompactJSONEncoder()
    private let logger: Logger

    init(logger: Logger) { self.logger = logger }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let messages = unwrapOutboundIn(data)
        var buffer = context.channel.allocator.buffer(capacity: 256 * messages.count)
        for message in messages {
            do {
                switch message {
                case .response(let response): buffer.writeBytes(try encoder.encode(response))
                case .event(let event): buffer.writeBytes(try encoder.encode(event))
                }
                buffer.writeInteger(UInt8(ascii: "\n"))
            } catch {
                continue
            }
        }
        context.write(wrapOutboundOut(buffer), promise: promise)
        if !context.channel.isWritable {
            logger.warning("closing a connection whose client does not read its replies and events")
            context.close(promise: nil)
        }
    }
}
