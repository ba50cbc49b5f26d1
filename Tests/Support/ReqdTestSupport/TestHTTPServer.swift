import Dispatch
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import Synchronization

/// A real HTTP/1.1 server (or, over TLS, an HTTP/2 one) on a loopback address for tests, in the
/// test process.
///
/// A handler decides each answer: its status, body, delay, or closing the connection without
/// one. The server records every request with the times it started and ended (on the monotonic
/// clock), so tests can check what really went over the wire: overlaps, gaps, aborts.
public final class TestHTTPServer: Sendable {
    /// What the server does with one request.
    public struct Reply: Sendable {
        public var status: Int
        public var headers: [(String, String)]
        public var body: [UInt8]
        /// How long to wait before answering, in nanoseconds.
        public var delayNanos: Int64
        /// Close the connection (after the delay) instead of answering.
        public var closeWithoutAnswer: Bool

        /// An answer with a body.
        public init(status: Int = 200, body: String = "", contentType: String = "application/json", delayNanos: Int64 = 0) {
            self.status = status
            self.headers = [("Content-Type", contentType)]
            self.body = Array(body.utf8)
            self.delayNanos = delayNanos
            self.closeWithoutAnswer = false
        }

        /// Closing the connection without an answer, after a delay.
        public static func close(afterNanos delay: Int64 = 0) -> Reply {
            var reply = Reply(delayNanos: delay)
            reply.closeWithoutAnswer = true
            return reply
        }
    }

    /// One request as the server saw it.
    public struct Record: Sendable {
        public var method: String
        public var path: String
        /// The HTTP version the request came in, such as `HTTP/1.1` or `HTTP/2.0`.
        public var version: String
        public var headers: [(String, String)]
        public var body: String
        /// The body's bytes as they came.
        public var bytes: [UInt8]
        /// When the request head arrived, in monotonic nanoseconds.
        public var start: UInt64
        /// When the answer was written, or the connection closed, in monotonic nanoseconds.
        public var end: UInt64?
        /// What the handler decided.
        public var status: Int?
        /// The client closed the connection before the answer was written.
        public var abortedByClient: Bool

        /// The value of the first header with this name, compared without case.
        public func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
    }

    public typealias Handler = @Sendable (Record) -> Reply

    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let state: Mutex<[Record]>
    private let recorder: Recorder
    /// The port the server listens on.
    public let port: Int
    /// The address it listens on.
    public let host: String

    /// Whether it speaks TLS: its URLs are `https`.
    public let isTLS: Bool

    /// Starts a server on an ephemeral port of `host` (any loopback address, 127.0.0.1 unless told);
    /// with `tls`, an HTTPS server (its certificate, and whether it asks for a client's). With
    /// `http2` as well, it offers only `h2` in ALPN and speaks HTTP/2, each stream a request.
    public init(host: String = "127.0.0.1", tls: TLSConfiguration? = nil, http2: Bool = false, handler: @escaping Handler) throws {
        precondition(!http2 || tls != nil, "the test server speaks HTTP/2 over TLS only")
        var tls = tls
        if http2 { tls?.applicationProtocols = ["h2"] }
        let context = try tls.map { try NIOSSLContext(configuration: $0) }
        isTLS = tls != nil
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let state = Mutex<[Record]>([])
        self.state = state
        self.group = group
        self.host = host
        let recorder = Recorder(server: nil)
        self.recorder = recorder
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                recorder.accepted.add(1, ordering: .relaxed)
                if http2, let context {
                    return channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    }.flatMap {
                        channel.configureHTTP2Pipeline(mode: .server, inboundStreamInitializer: { stream in
                            stream.eventLoop.makeCompletedFuture {
                                try stream.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
                                try stream.pipeline.syncOperations.addHandler(Connection(recorder: recorder, handler: handler))
                            }
                        }).map { _ in }
                    }
                }
                return channel.eventLoop.makeCompletedFuture {
                    if let context { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context)) }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(Connection(recorder: recorder, handler: handler))
                }
            }
        channel = try bootstrap.bind(host: host, port: 0).wait()
        port = channel.localAddress?.port ?? 0
        recorder.server.withLock { $0 = self }
    }

    /// A URL on this server.
    public func url(_ path: String) -> String { "\(isTLS ? "https" : "http")://\(host):\(port)\(path)" }

    /// Connections accepted so far, whether or not a request came on them.
    public var connectionCount: Int { recorder.accepted.load(ordering: .relaxed) }

    /// Every request so far, in the order they arrived.
    public var records: [Record] { state.withLock { $0 } }

    /// The requests to one path, in the order they arrived.
    public func records(path: String) -> [Record] { records.filter { $0.path == path } }

    /// Stops the server.
    public func shutdown() {
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }

    func begin(_ record: Record) -> Int {
        state.withLock { records in
            records.append(record)
            return records.count - 1
        }
    }

    func end(_ index: Int, status: Int?, aborted: Bool) {
        let now = DispatchTime.now().uptimeNanoseconds
        state.withLock { records in
            guard records[index].end == nil else { return }
            records[index].end = now
            records[index].status = status
            records[index].abortedByClient = aborted
        }
    }
}
