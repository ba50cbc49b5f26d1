import NIOCore

extension TargetGate {
    /// One end of a tunnel: what one connection reads, its partner writes.
    ///
    /// It reads only while its partner can write, so a slow side holds the fast one back instead
    /// of filling memory; an end of input is passed on as a half-close, a close as a close.
    final class TunnelHandler: ChannelDuplexHandler {
        typealias InboundIn = NIOAny
        typealias OutboundIn = NIOAny
        typealias OutboundOut = NIOAny

        private var partner: TunnelHandler?
        private var context: ChannelHandlerContext?
        private var readPending = false

        /// Two ends joined to each other; each goes into one of the two pipelines (on one event loop).
        static func matchedPair() -> (TunnelHandler, TunnelHandler) {
            let (first, second) = (TunnelHandler(), TunnelHandler())
            first.partner = second
            second.partner = first
            return (first, second)
        }

        func handlerAdded(context: ChannelHandlerContext) {
            self.context = context
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            self.context = nil
            partner = nil
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            partner?.context?.write(data, promise: nil)
        }

        func channelReadComplete(context: ChannelHandlerContext) {
            partner?.context?.flush()
        }

        func channelInactive(context: ChannelHandlerContext) {
            partner?.context?.close(promise: nil)
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case ChannelEvent.inputClosed = event, let other = partner?.context {
                // After what is written so far: a half-close of a channel whose input is shut
                // already is a full close, which would drop writes still pending.
                other.writeAndFlush(NIOAny(other.channel.allocator.buffer(capacity: 0))).assumeIsolated().whenComplete { _ in
                    other.close(mode: .output, promise: nil)
                }
            }
            context.fireUserInboundEventTriggered(event)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }

        func channelWritabilityChanged(context: ChannelHandlerContext) {
            if context.channel.isWritable { partner?.resumeReading() }
            context.fireChannelWritabilityChanged()
        }

        func read(context: ChannelHandlerContext) {
            if partner?.context?.channel.isWritable ?? false {
                context.read()
            } else {
                readPending = true
            }
        }

        private func resumeReading() {
            guard readPending, let context else { return }
            readPending = false
            context.read()
        }
    }
}
