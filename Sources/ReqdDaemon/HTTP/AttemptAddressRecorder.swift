import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import ReqdCore
import Synchronization

/// Learns which address each attempt was sent to, for the attempt log.
///
/// AsyncHTTPClient does not say which pooled connection carried a request. So each request
/// carries a private header naming its attempt (`header`), and a handler in every connection's
/// pipeline takes that header out before the request is encoded, noting the connection's peer.
/// The header never reaches the wire. Through the target gate the peer is the gate itself; the
/// gate says which address the tunnel behind that connection reached (`TargetGate.upstream(forClientPort:)`).
///
/// An attempt is noted only between `expect` and `take`: a head written after its attempt was
/// aborted and taken leaves nothing behind.
final class AttemptAddressRecorder: Sendable {
    /// The private header that names an attempt between the executor and the handler.
    static let header = HTTPHeader.attemptTag

    /// The attempts on their way, by tag: "" until a connection carried the attempt, then its address.
    private let addresses = Mutex<[String: String]>([:])
    private let gate: TargetGate?

    init(gate: TargetGate?) {
        self.gate = gate
    }

    /// The tag a request for `job`'s attempt carries.
    static func tag(job: String, attempt: UInt32) -> String { "\(job) \(attempt)" }

    /// Starts noting where the attempt tagged `tag` goes.
    func expect(_ tag: String) {
        addresses.withLock { $0[tag] = "" }
    }

    /// The address the attempt tagged `tag` went to, if a connection carried it; it is forgotten.
    func take(_ tag: String) -> String? {
        let address = addresses.withLock { $0.removeValue(forKey: tag) }
        return address?.isEmpty == false ? address : nil
    }

    /// Puts the handler in a connection's (or an HTTP/2 stream's) pipeline, just before the
    /// response decompressor that AsyncHTTPClient places before its own request handler, so the
    /// handler sees each request head before it is encoded. The decompressor is always there:
    /// `HTTPExecutor.clientConfiguration` always turns decompression on, and without it every
    /// connection would fail here rather than let a tag reach the wire.
    func install(on channel: any Channel) -> EventLoopFuture<Void> {
        channel.eventLoop.makeCompletedFuture {
            let sync = channel.pipeline.syncOperations
            let decompressor = try sync.context(handlerType: NIOHTTPResponseDecompressor.self)
            try sync.addHandler(Handler(recorder: self), position: .before(decompressor.handler))
        }
    }

    fileprivate func note(_ tag: String, channel: any Channel) {
        let connection = channel.parent ?? channel
        guard let remote = connection.remoteAddress else { return }
        var address = remote.hostPortText
        if let gate, remote.port == gate.port, let local = connection.localAddress?.port {
            address = gate.upstream(forClientPort: local) ?? address
        }
        guard let address else { return }
        addresses.withLock { addresses in
            if addresses[tag] != nil { addresses[tag] = address }
        }
    }

    /// Takes the attempt header out of each request head and notes where the head goes.
    private final class Handler: ChannelOutboundHandler, RemovableChannelHandler {
        typealias OutboundIn = HTTPClientRequestPart
        typealias OutboundOut = HTTPClientRequestPart

        private let recorder: AttemptAddressRecorder

        init(recorder: AttemptAddressRecorder) {
            self.recorder = recorder
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            guard case .head(var head) = unwrapOutboundIn(data), head.headers.contains(name: AttemptAddressRecorder.header) else {
                return context.write(data, promise: promise)
            }
            if let tag = head.headers.first(name: AttemptAddressRecorder.header) { recorder.note(tag, channel: context.channel) }
            head.headers.remove(name: AttemptAddressRecorder.header)
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        }
    }
}
