import Logging
import NIOCore
import ReqdProtocol

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
