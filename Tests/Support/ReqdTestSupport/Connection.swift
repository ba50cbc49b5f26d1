import Dispatch
import NIOCore
import NIOHTTP1
import Synchronization

/// One connection: collects a request, asks the handler, answers after the delay.
final class Connection: ChannelInboundHandler, @unchecked Sendable {
    // @unchecked Sendable: every stored var is touched only on the channel's event loop.
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let recorder: Recorder
    private let handler: TestHTTPServer.Handler
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var start: UInt64 = 0
    private var pending: Int?

    init(recorder: Recorder, handler: @escaping TestHTTPServer.Handler) {
        self.recorder = recorder
        self.handler = handler
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let requestHead):
            head = requestHead
            body = []
            start = DispatchTime.now().uptimeNanoseconds
        case .body(var buffer):
            body += buffer.readBytes(length: buffer.readableBytes) ?? []
        case .end:
            guard let head, let server = recorder.server.withLock({ $0 }) else { return }
            let record = TestHTTPServer.Record(
                method: head.method.rawValue, path: head.uri, version: "\(head.version)", headers: head.headers.map { ($0.name, $0.value) },
                body: String(decoding: body, as: UTF8.self), bytes: body, start: start, end: nil, status: nil, abortedByClient: false)
            let index = server.begin(record)
            pending = index
            let reply = handler(record)
            let keepAlive = head.isKeepAlive
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(in: .nanoseconds(reply.delayNanos)) {
                let (connection, context) = loopBound.value
                connection.answer(reply, index: index, keepAlive: keepAlive, server: server, context: context)
            }
        }
    }

    private func answer(
        _ reply: TestHTTPServer.Reply, index: Int, keepAlive: Bool, server: TestHTTPServer, context: ChannelHandlerContext
    ) {
        guard pending == index, context.channel.isActive else { return }
        pending = nil
        if reply.closeWithoutAnswer {
            server.end(index, status: nil, aborted: false)
            context.close(promise: nil)
            return
        }
        var headers = HTTPHeaders(reply.headers)
        headers.add(name: "Content-Length", value: "\(reply.body.count)")
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        let responseHead = HTTPResponseHead(
            version: .http1_1, status: HTTPResponseStatus(statusCode: reply.status), headers: headers)
        context.write(wrapOutboundOut(.head(responseHead)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: reply.body)))), promise: nil)
        server.end(index, status: reply.status, aborted: false)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            if !keepAlive { context.close(promise: nil) }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let index = pending, let server = recorder.server.withLock({ $0 }) {
            server.end(index, status: nil, aborted: true)
        }
        pending = nil
        context.fireChannelInactive()
    }
}
