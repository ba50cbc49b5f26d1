import Logging
import NIOCore
import ReqdProtocol

/// Encodes outbound messages as JSON lines, and drops a client that stops reading its events.
///
/// A watcher that never reads would make the daemon buffer its events without bound; once a
/// connection's unwritten events pass `socket.max_pending_bytes`, the connection is closed, and
/// only that client loses its stream. Only events count: a reply goes out whatever follows it, and
/// those whose size could follow the number of jobs are bounded where they are made (a `list`
/// page, a scope `cancel`). Replies cannot pile up, since `ConnectionHandler` answers no more
/// requests while the client is behind.
final class MessageEncoder: ChannelOutboundHandler {
    typealias OutboundIn = [OutboundMessage]
    typealias OutboundOut = ByteBuffer

    /// The text of one write's messages, reused from write to write.
    private var writer = JSONWriter(capacity: 4096)
    private static let keptWriterCapacity = 1 << 20
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
        writer.removeAll()
        var eventBytes = 0
        for message in messages {
            let start = writer.bytes.count
            switch message {
            case .response(let response): response.write(to: &writer)
            case .event(let event): event.write(to: &writer)
            }
            writer.newline()
            if message.isEvent { eventBytes += writer.bytes.count - start }
        }
        var buffer = context.channel.allocator.buffer(capacity: writer.bytes.count)
        buffer.writeBytes(writer.bytes)
        // One long `list` should not leave its size behind on a connection that lives on.
        if writer.bytes.capacity > Self.keptWriterCapacity { writer = JSONWriter(capacity: 4096) }
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
}
