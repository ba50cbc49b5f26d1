import NIOCore
import NIOHTTP1

extension TargetGate {
    /// Serves one connection to the gate: reads its `CONNECT`, checks the credential, opens the
    /// target through the policy, answers, and then splices the two connections together.
    final class ConnectHandler: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        private enum State {
            case idle
            case head(target: String)
            case connecting
            case done
        }

        private let checkpoint: Checkpoint
        private let decoder: ByteToMessageHandler<HTTPRequestDecoder>
        private let encoder: HTTPResponseEncoder
        private var state = State.idle
        private var idleClose: Scheduled<Void>?

        init(checkpoint: Checkpoint, decoder: ByteToMessageHandler<HTTPRequestDecoder>, encoder: HTTPResponseEncoder) {
            self.checkpoint = checkpoint
            self.decoder = decoder
            self.encoder = encoder
        }

        /// A connection that has not asked for a tunnel within the connect timeout is closed, so
        /// nobody can hold the daemon's descriptors by connecting and saying nothing.
        func handlerAdded(context: ChannelHandlerContext) {
            let timeout = TimeAmount.nanoseconds(checkpoint.settings.connectTimeoutNanos)
            idleClose = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [weak self] in
                guard let self else { return }
                if case .connecting = state { return }
                if case .done = state { return }
                state = .done
                context.close(promise: nil)
            }
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            idleClose?.cancel()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch (unwrapInboundIn(data), state) {
            case (.head(let head), .idle):
                guard head.method == .CONNECT, checkpoint.authorizes(head.headers["proxy-authorization"].first) else {
                    return refuse(.proxyAuthenticationRequired, context: context)
                }
                state = .head(target: head.uri)
            case (.end, .head(let target)):
                state = .connecting
                open(target, context: context)
            case (.body, _), (.end, _), (.head, _):
                refuse(.badRequest, context: context)
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            state = .done
            context.close(promise: nil)
        }

        /// Splits `host:port` (`[v6]:port`, or a bare IPv6 address before the last colon) and opens it.
        private func open(_ target: String, context: ChannelHandlerContext) {
            guard let colon = target.lastIndex(of: ":"), let port = Int(target[target.index(after: colon)...]),
                (1...65535).contains(port)
            else { return refuse(.badRequest, context: context) }
            var host = target[..<colon]
            if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
            let hostPort = "\(host):\(port)"
            checkpoint.open(host: String(host), port: port, on: context.eventLoop).assumeIsolated().whenSuccess { opening in
                switch opening {
                case .connected(let peer):
                    self.splice(context: context, to: peer)
                case .refused(let failure):
                    // A client that gave up already never reads it: it would explain a later failure.
                    guard case .connecting = self.state, context.channel.isActive else { return }
                    self.checkpoint.record(failure, for: hostPort)
                    if case .denied = failure {
                        self.refuse(.forbidden, context: context)
                    } else {
                        self.refuse(.badGateway, context: context)
                    }
                }
            }
        }

        /// Answers 200 and, once it is written, joins the client's connection to the target's.
        private func splice(context: ChannelHandlerContext, to peer: any Channel) {
            guard case .connecting = state, context.channel.isActive else {
                peer.close(promise: nil)
                return
            }
            state = .done
            // Known before the client hears 200, so its first request finds where it goes.
            if let client = context.channel.remoteAddress?.port, let reached = peer.remoteAddress?.hostPortText {
                let tunnel = ObjectIdentifier(context.channel)
                checkpoint.tunnels.withLock { $0[client] = (tunnel, reached) }
                context.channel.closeFuture.whenComplete { [checkpoint] _ in
                    checkpoint.tunnels.withLock { tunnels in
                        if tunnels[client]?.channel == tunnel { tunnels[client] = nil }
                    }
                }
            }
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { written in
                let (ours, theirs) = TunnelHandler.matchedPair()
                do {
                    try written.get()
                    let sync = context.pipeline.syncOperations
                    try sync.addHandler(ours)
                    try peer.pipeline.syncOperations.addHandler(theirs)
                    // This handler first: the decoder hands on any bytes it holds when it goes.
                    sync.removeHandler(context: context, promise: nil)
                    sync.removeHandler(self.encoder, promise: nil)
                    // Bytes the decoder held reach the target when it goes; send them on.
                    let decoderRemoved = context.eventLoop.makePromise(of: Void.self)
                    sync.removeHandler(self.decoder, promise: decoderRemoved)
                    decoderRemoved.futureResult.whenComplete { _ in peer.flush() }
                    // The target's connection read nothing until its tunnel end was in place.
                    peer.setOption(.autoRead, value: true).whenFailure { _ in peer.close(promise: nil) }
                } catch {
                    context.close(promise: nil)
                    peer.close(promise: nil)
                }
            }
        }

        /// Answers with `status` and no body, then closes.
        private func refuse(_ status: HTTPResponseStatus, context: ChannelHandlerContext) {
            if case .done = state { return }
            state = .done
            var head = HTTPResponseHead(version: .http1_1, status: status)
            head.headers.add(name: "connection", value: "close")
            head.headers.add(name: "content-length", value: "0")
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }
}
