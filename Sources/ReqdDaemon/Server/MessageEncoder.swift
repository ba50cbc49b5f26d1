import Logging
import NIOCore
import ReqdProtocol

/// Encodes outbound messages as JSON lines, and drops a client that stops reading its events.
///
/// A watcher that never reads would make the daemon buffer its events without bound; once a
/// connection's unwritten events pass `socket.max_pending_bytes`, the connection is closed, and
/// only that client loses its stream. Only events count: one large reply (a `list` of many jobs)
/// is a large reply, not a client that stopped reading, and goes out whatever follows it. Replies
/// cannot pile up, since `ConnectionHandler` answers no more requests while the client is behind.
final class MessageEncoder: ChannelOutboundHandler {
    typealias OutboundIn = [OutboundMessage]
    typealias OutboundOut = ByteBuffer

    private let encoder = CompactJSONEncoder()
    private let logger: Logger
    private let maxPendingEventBytes: Int
    /// Bytes of events written to the channel and not yet on the socket.
    private var pendingEventBytes = 0

    init(logger: Logger, maxPendingEventBytes: Int) {
        self.logger = logger
        self.maxPendingEventBytes = maxPendingEventBytes
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let messages = unwrapOutboundIn(data)
        var buffer = context.channel.allocator.buffer(capacity: 256 * messages.count)
        var eventBytes = 0
        for message in messages {
            let start = buffer.writerIndex
            switch message {
            case .response(let response):
                do {
                    buffer.writeBytes(try encoder.encode(response))
                } catch {
                    // The client still gets one reply for its request, never silence.
                    logger.error("a reply could not be encoded; answering internal", metadata: ["request.id": "\(response.id.map { "\($0)" } ?? "none")"])
                    buffer.writeBytes(Self.unencodable(response.id))
                }
            case .event(let event):
                do {
                    buffer.writeBytes(try encoder.encode(event))
                } catch {
                    logger.error("an event could not be encoded; it is not sent", metadata: ["job.id": "\(event.event.job)", "job.event": "\(event.event.type.rawValue)"])
                    continue
                }
            }
            buffer.writeInteger(UInt8(ascii: "\n"))
            if message.isEvent { eventBytes += buffer.writerIndex - start }
        }
        guard eventBytes > 0 else {
            context.write(wrapOutboundOut(buffer), promise: promise)
            return
        }
        guard pendingEventBytes + eventBytes <= maxPendingEventBytes || pendingEventBytes == 0 else {
            logger.warning("closing a connection whose client does not read its events")
            promise?.fail(ChannelError.outputClosed)
            context.close(promise: nil)
            return
        }
        pendingEventBytes += eventBytes
        let written = promise ?? context.eventLoop.makePromise()
        written.futureResult.assumeIsolated().whenComplete { _ in self.pendingEventBytes -= eventBytes }
        context.write(wrapOutboundOut(buffer), promise: written)
    }

    /// The reply sent instead of one that could not be encoded: `internal`, with the request's id.
    static func unencodable(_ id: RequestID?) -> [UInt8] {
        let failure = Response(id: id, outcome: .failure(WireError(.internal, "the reply could not be encoded")))
        // A failure reply is an id, a code and a fixed message: it always encodes.
        return (try? CompactJSONEncoder().encode(failure)) ?? Array(#"{"ok":false,"error":{"code":"internal","message":"the reply could not be encoded"}}"#.utf8)
    }
}
