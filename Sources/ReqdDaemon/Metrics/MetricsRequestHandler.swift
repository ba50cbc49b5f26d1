import NIOCore
import NIOHTTP1

/// Answers the metrics endpoint's requests: `GET /metrics` (or `HEAD`) with the exposition text,
/// 404 for any other path and 405 for any other method, and then closes the connection.
final class MetricsRequestHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// The content type of the Prometheus text exposition format.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    private let loop: SchedulerLoop

    init(loop: SchedulerLoop) { self.loop = loop }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let head) = unwrapInboundIn(data) else { return }
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        let (status, body): (HTTPResponseStatus, String)
        switch (head.method, path) {
        case (.GET, "/metrics"), (.HEAD, "/metrics"): (status, body) = (.ok, loop.exposition())
        case (.GET, _), (.HEAD, _): (status, body) = (.notFound, "only /metrics is served here\n")
        default: (status, body) = (.methodNotAllowed, "only GET /metrics is served here\n")
        }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: status == .ok ? Self.contentType : "text/plain; charset=utf-8")
        headers.add(name: "Content-Length", value: "\(body.utf8.count)")
        if status == .methodNotAllowed { headers.add(name: "Allow", value: "GET, HEAD") }
        headers.add(name: "Connection", value: "close")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
        if head.method != .HEAD {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: body)))), promise: nil)
        }
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}
