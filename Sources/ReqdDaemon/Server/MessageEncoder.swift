import Logging
import NIOCore
import ReqdProtocol

/// Encodes outbound messages as JSON lines, and drops a client that stops reading.
///
/// A watcher that never reads would make the daemon buffer its events without bound; once a
/// connection's unwritten output passes `socket.max_pending_bytes` (the channel stops being
/// writable), the next write closes the connection, and only that client loses its stream.
///
/// Only events close it, and only when the limit was passed before them: one large reply (a `list`
/// of many jobs) is a large reply, not a client that stopped reading, and goes out. Replies cannot
/// pile up, since `ConnectionHandler` reads no more requests while the limit is passed.
final class MessageEncoder: ChannelOutboundHandler {
    typealias OutboundIn = [OutboundMessage]
    typealias OutboundOut = ByteBuffer

    private let encoder = CompactJSONEncoder()
    private let logger: Logger

    init(logger: Logger) { self.logger = logger }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let messages = unwrapOutboundIn(data)
        guard context.channel.isWritable || !messages.contains(where: \.isEvent) else {
            logger.warning("closing a connection whose client does not read its replies and events")
            promise?.fail(ChannelError.outputClosed)
            context.close(promise: nil)
            return
        }
        var buffer = context.channel.allocator.buffer(capacity: 256 * messages.count)
        for message in messages {
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
        }
        context.write(wrapOutboundOut(buffer), promise: promise)
    }

    /// The reply sent instead of one that could not be encoded: `internal`, with the request's id.
    static func unencodable(_ id: RequestID?) -> [UInt8] {
        let failure = Response(id: id, outcome: .failure(WireError(.internal, "the reply could not be encoded")))
        // A failure reply is an id, a code and a fixed message: it always encodes.
        return (try? CompactJSONEncoder().encode(failure)) ?? Array(#"{"ok":false,"error":{"code":"internal","message":"the reply could not be encoded"}}"#.utf8)
    }
}
