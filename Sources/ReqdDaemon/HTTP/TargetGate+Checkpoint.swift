import Foundation
import NIOCore
import NIOPosix
import ReqdCore
import Synchronization

extension TargetGate {
    /// What the gate's connections share: the policy, the credential, and the record of refusals.
    /// Made before the gate listens, so a connection never sees it half-built.
    final class Checkpoint: Sendable {
        /// How opening a target came out.
        enum Opening: Sendable {
            case connected(any Channel)
            case refused(Failure)
        }

        /// How resolving a target's name came out.
        private enum Resolution: Sendable {
            case found([SocketAddress])
            case refused(Failure)
        }

        /// The `Proxy-Authorization` value every `CONNECT` must carry: Basic, user `reqd`, a
        /// random password.
        let expectedAuthorization: [UInt8]
        /// The password, for the client's proxy configuration.
        let password: String
        let settings: HTTPSettings
        let failures = Mutex(FailureLog())
        /// The address each open tunnel reached, by the port of the client's end of it, with the
        /// tunnel's channel, so a closing tunnel never forgets a newer one on the same port.
        let tunnels = Mutex<[Int: (channel: ObjectIdentifier, address: String)]>([:])
        private let policy: TargetPolicy

        init(policy: TargetPolicy, settings: HTTPSettings) {
            var generator = SystemRandomNumberGenerator()
            password = (0..<24).map { _ in String(format: "%02x", generator.next() as UInt8) }.joined()
            expectedAuthorization = Array(("Basic " + Data("reqd:\(password)".utf8).base64EncodedString()).utf8)
            self.policy = policy
            self.settings = settings
        }

        /// Whether `value` is the expected credential, compared in constant time.
        func authorizes(_ value: String?) -> Bool {
            guard let value else { return false }
            let given = Array(value.utf8)
            guard given.count == expectedAuthorization.count else { return false }
            return zip(given, expectedAuthorization).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
        }

        /// Remembers why a tunnel to `hostPort` was refused.
        func record(_ failure: Failure, for hostPort: String) {
            failures.withLock { $0.record(failure, for: hostPort.lowercased(), now: .now()) }
        }

        /// Resolves `host`, checks every address against the policy, and connects to the checked
        /// addresses (both families racing, as NIO does for a name); the result arrives on `loop`.
        func open(host: String, port: Int, on loop: any EventLoop) -> EventLoopFuture<Opening> {
            let promise = loop.makePromise(of: Resolution.self)
            if !host.contains("%"), let literal = IPAddress(host[...]),
                let address = try? SocketAddress(ipAddress: literal.description, port: port)
            {
                promise.succeed(.found([address]))
            } else {
                DispatchQueue.global().async { promise.succeed(Self.resolve(host, port: port)) }
            }
            let (policy, settings) = (policy, settings)
            return promise.futureResult.flatMap { resolved -> EventLoopFuture<Opening> in
                let addresses: [SocketAddress]
                switch resolved {
                case .refused(let failure): return loop.makeSucceededFuture(.refused(failure))
                case .found(let found): addresses = found
                }
                let checked = addresses.compactMap { $0.ipBytes.flatMap(IPAddress.init(bytes:)) }
                if let denial = policy.denial(host: host, addresses: checked) {
                    return loop.makeSucceededFuture(.refused(.denied(denial)))
                }
                // Sooner than the client's own deadline (which also covers the way to the gate), so
                // the gate's finding, such as no route to the target, reaches the job.
                return ClientBootstrap(group: loop)
                    .connectTimeout(.nanoseconds(settings.connectTimeoutNanos / 5 * 4))
                    .channelOption(.allowRemoteHalfClosure, value: true)
                    .channelOption(.autoRead, value: false)
                    .resolver(CheckedResolver(addresses: addresses, loop: loop))
                    .connect(host: host, port: port)
                    .map { Opening.connected($0) }
                    .flatMapErrorThrowing { error in
                        let why = HTTPExecutor.describe(error, settings: settings)
                        return .refused(HTTPExecutor.isUnreachable(error) ? .unreachable(why) : .failed(why))
                    }
            }
        }

        /// Every address `host` resolves to, or why it does not resolve.
        private static func resolve(_ host: String, port: Int) -> Resolution {
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            let status = getaddrinfo(host, String(port), &hints, &list)
            guard status == 0, let first = list else {
                let why = "could not resolve \(host): \(String(cString: gai_strerror(status)))"
                return .refused(status == EAI_AGAIN ? .unreachable(why) : .failed(why))
            }
            defer { freeaddrinfo(first) }
            var addresses: [SocketAddress] = []
            var entry: UnsafeMutablePointer<addrinfo>? = first
            while let current = entry {
                if let address = current.pointee.ai_addr {
                    switch Int32(address.pointee.sa_family) {
                    case AF_INET:
                        address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { addresses.append(SocketAddress($0.pointee, host: host)) }
                    case AF_INET6:
                        address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { addresses.append(SocketAddress($0.pointee, host: host)) }
                    default: break
                    }
                }
                entry = current.pointee.ai_next
            }
            guard !addresses.isEmpty else { return .refused(.failed("could not resolve \(host): no addresses")) }
            return .found(addresses)
        }
    }
}
