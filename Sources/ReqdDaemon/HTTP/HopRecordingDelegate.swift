import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// Collects a response as `ResponseAccumulator` does and remembers where the request went last:
/// its URL, or the target of the last redirect it was told to follow.
///
/// When the target gate refuses a connection the client reports only that the proxy said no; the
/// last hop names the `host:port` whose refusal the gate recorded.
///
/// With `sameOriginOnly` it fails the request rather than let the client follow a redirect to
/// another origin: the client would send the same headers (a webhook signature) and present the
/// same client certificate there.
public final class HopRecordingDelegate: HTTPClientResponseDelegate {
    /// A redirect to another origin, refused.
    public struct CrossOriginRedirect: Error {
        /// `host:port` it pointed to.
        public let target: String
    }

    public typealias Response = HTTPClient.Response

    private let inner: ResponseAccumulator
    /// The request's URL, or the last redirect's target; made into `host:port` only when asked.
    private let hop: Mutex<URL>
    private let sameOriginOnly: Bool

    /// A delegate for one execution of `request` that refuses a body over `maxBodySize` bytes, and
    /// with `sameOriginOnly` a redirect to another scheme, host or port.
    public init(request: HTTPClient.Request, maxBodySize: Int, sameOriginOnly: Bool = false) {
        inner = ResponseAccumulator(request: request, maxBodySize: maxBodySize)
        hop = Mutex(request.url)
        self.sameOriginOnly = sameOriginOnly
    }

    /// The statuses the client follows when it follows redirects: AsyncHTTPClient's
    /// `extractRedirectTarget` follows 304 and 305 with a `Location` too.
    static let followed: Set<UInt> = [301, 302, 303, 304, 305, 307, 308]

    /// `host:port` of the last place the request went or was redirected to.
    public var lastHop: String? { Self.hostPort(hop.withLock { $0 }) }

    /// `host:port` of a URL, with the scheme's port when it names none; the host as the client
    /// puts it in a `CONNECT`.
    static func hostPort(_ url: URL) -> String? {
        guard let host = url.host?.lowercased() else { return nil }
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        return "\(bare):\(url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80))"
    }

    public func didVisitURL(task: HTTPClient.Task<Response>, _ request: HTTPClient.Request, _ head: HTTPResponseHead) {
        if (300..<400).contains(head.status.code), let location = head.headers.first(name: "location"),
            let next = URL(string: location, relativeTo: request.url)?.absoluteURL
        {
            // Only the redirects the client would follow; another 3xx is the answer.
            if sameOriginOnly, Self.followed.contains(head.status.code), next.scheme?.lowercased() != request.url.scheme?.lowercased() || Self.hostPort(next) != Self.hostPort(request.url) {
                task.fail(reason: CrossOriginRedirect(target: Self.hostPort(next) ?? location))
                return
            }
            hop.withLock { $0 = next }
        }
        inner.didVisitURL(task: task, request, head)
    }

    public func didSendRequestHead(task: HTTPClient.Task<Response>, _ head: HTTPRequestHead) {
        inner.didSendRequestHead(task: task, head)
    }

    public func didSendRequestPart(task: HTTPClient.Task<Response>, _ part: IOData) {
        inner.didSendRequestPart(task: task, part)
    }

    public func didSendRequest(task: HTTPClient.Task<Response>) {
        inner.didSendRequest(task: task)
    }

    public func didReceiveHead(task: HTTPClient.Task<Response>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        inner.didReceiveHead(task: task, head)
    }

    public func didReceiveBodyPart(task: HTTPClient.Task<Response>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        inner.didReceiveBodyPart(task: task, buffer)
    }

    public func didReceiveError(task: HTTPClient.Task<Response>, _ error: any Error) {
        inner.didReceiveError(task: task, error)
    }

    public func didFinishRequest(task: HTTPClient.Task<Response>) throws -> Response {
        try inner.didFinishRequest(task: task)
    }
}
