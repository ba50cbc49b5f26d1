import Foundation
import ReqdProtocol

/// A blocking NDJSON connection to the daemon.
final class DaemonConnection {
    private let descriptor: Int32
    private var framer = LineFramer(maxLineBytes: 256 << 20)
    private var ready: [[UInt8]] = []
    private var readBuffer = [UInt8](repeating: 0, count: 65_536)
    private var nextID: Int64 = 1
    private let encoder = CompactJSONEncoder()
    let decoder = JSONDecoder()
    let path: String

    /// Connects and says `hello`, or fails: with the unreachable status and advice, with
    /// `unsupported_protocol` (exit 13) from a daemon of another protocol, or with the daemon's
    /// refusal of the connection.
    ///
    /// The hello's reply is waited for, one round trip, before any request is sent: a daemon of
    /// another protocol does not carry out a request it may read otherwise, and a daemon that
    /// refuses the connection is heard before a request could fail on the closed socket.
    init(socket: String?) throws {
        let (path, tried) = SocketLocator.locate(explicit: socket)
        self.path = path
        do throws(UnixSocket.Failure) {
            descriptor = try UnixSocket.connect(path: path)
        } catch where error.code == .pathTooLong {
            throw ClientFailure(message: "socket path too long: \(path)", status: ExitStatus.usage)
        } catch where error.errorNumber == EACCES || error.errorNumber == EPERM {
            let group = Self.group(of: path) ?? "reqd"
            let advice =
                group == "root"
                ? "Ask the admin to give the socket a group of its own (socket.group, or SocketGroup= in reqd.socket), such as reqd, then join that group and log in again."
                : "Join it (`sudo usermod -aG \(group) $USER`), then log in again so the group applies."
            throw ClientFailure(
                message: "permission denied on the reqd socket \(path): only members of group '\(group)' may connect.\n\(advice)",
                status: ExitStatus.unreachable)
        } catch {
            let where_ = tried.count > 1 ? "tried \(tried.joined(separator: ", "))" : "at \(path)"
            throw ClientFailure(
                message: """
                    cannot reach the reqd daemon (\(error.reason)); \(where_).
                    Start it with `reqd` (or `systemctl start reqd`), or point --socket or $REQD_SOCKET at its socket.
                    """,
                status: ExitStatus.unreachable)
        }
        try sayHello()
    }

    /// Sends `hello` and checks its reply; only its `ok` and `error` are read, so a daemon whose
    /// reply has other fields is not taken for one of another protocol.
    private func sayHello() throws {
        let line: [UInt8]
        do {
            line = try reply(to: try send(.hello(HelloRequest(client: "reqd-client/\(ProtocolInfo.softwareVersion)"))))
        } catch let failure as ClientFailure where failure.status == ExitStatus.unreachable {
            // A daemon that refuses the connection says why in a line, then closes: read it if it came.
            guard let said = try? readLine() else { throw failure }
            line = said
        }
        let envelope = try decoder.decode(ResponseEnvelope<Unread>.self, from: Data(line))
        if !envelope.ok { throw Self.refusal(envelope.error) }
    }

    /// A reply's result that is not read.
    private struct Unread: Decodable, Sendable {
        init(from decoder: any Decoder) {}
    }

    deinit { close(descriptor) }

    /// The name of the group that owns `path`, when it can be seen.
    private static func group(of path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0, let entry = getgrgid(info.st_gid) else { return nil }
        return String(cString: entry.pointee.gr_name)
    }

    /// How long one `readLine` waits for its line; nil waits for as long as it takes.
    private var readTimeout: Duration?

    /// Gives up a read of a line after `seconds`; it then fails with `waitTimedOut`.
    func setReadTimeout(seconds: Double) {
        readTimeout = .nanoseconds(Int64(min(max(seconds, 0), 1e9) * 1e9))
    }

    /// Arms `SO_RCVTIMEO` with what is left until `readDeadline`; false when nothing is left.
    private func armReadTimeout(until readDeadline: ContinuousClock.Instant?) -> Bool {
        guard let readDeadline else { return true }
        let left = ContinuousClock.now.duration(to: readDeadline)
        guard left > .zero else { return false }
        let (seconds, attoseconds) = left.components
        // A zero timeval would mean no timeout at all: at least a microsecond is left.
        var value = timeval(tv_sec: Int(seconds), tv_usec: max(Int(attoseconds / 1_000_000_000_000), seconds == 0 ? 1 : 0))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        return true
    }

    /// Sends a request and returns its id.
    @discardableResult
    func send(_ body: RequestBody) throws -> RequestID {
        let id = RequestID.number(nextID)
        nextID += 1
        var line = try encoder.encode(Request(id: id, body: body))
        line.append(10)
        try line.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                // MSG_NOSIGNAL: a daemon that closed the connection is an error here, not a SIGPIPE.
                let written = Glibc.send(descriptor, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { throw Self.closed }
                offset += written
            }
        }
        return id
    }

    /// The failure of a connection the daemon closed (or that broke).
    private static let closed = ClientFailure(message: "the daemon closed the connection", status: ExitStatus.unreachable)

    /// The next line from the daemon.
    func readLine() throws -> [UInt8] {
        let deadline = ready.isEmpty ? readTimeout.map { ContinuousClock.now + $0 } : nil
        while ready.isEmpty {
            guard armReadTimeout(until: deadline) else { throw ClientFailure(message: "timed out waiting", status: ExitStatus.waitTimedOut) }
            let count = read(descriptor, &readBuffer, readBuffer.count)
            if count < 0 {
                // A stop and `fg` (SIGTSTP, SIGCONT) interrupts the read: it goes on, to the same deadline.
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { continue }
            }
            guard count > 0 else { throw Self.closed }
            var frames: [LineFramer.Frame] = []
            framer.append(readBuffer[..<count], into: &frames)
            for frame in frames {
                switch frame {
                case .line(let line): ready.append(line)
                case .oversized:
                    throw ClientFailure(
                        message: "the daemon sent a line longer than \(framer.maxLineBytes >> 20) MiB, which this client does not read",
                        status: ExitStatus.protocolMismatch)
                }
            }
        }
        return ready.removeFirst()
    }

    /// Reads until the reply to `id`, handing any event lines to `onEvent`, and returns the raw reply.
    func reply(to id: RequestID, onEvent: (([UInt8]) throws -> Void)? = nil) throws -> [UInt8] {
        while true {
            let line = try readLine()
            let kind = try decoder.decode(IncomingLineKind.self, from: Data(line))
            if kind.isEvent {
                try onEvent?(line)
            } else if kind.id == id || kind.id == nil {
                return line
            }
        }
    }

    /// Decodes a reply's result, or throws the daemon's error with its exit status.
    func result<T: Decodable & Sendable>(_ type: T.Type, from line: [UInt8]) throws -> T {
        let envelope = try decoder.decode(ResponseEnvelope<T>.self, from: Data(line))
        if envelope.ok, let result = envelope.result { return result }
        throw Self.refusal(envelope.error)
    }

    /// The failure a reply without a result stands for: the daemon's error, with its exit status.
    private static func refusal(_ error: WireError?) -> ClientFailure {
        let error = error ?? WireError(.internal, "the daemon sent an empty reply")
        return ClientFailure(message: "\(error.code.rawValue): \(error.message)", status: ExitStatus.forError(error.code), wire: error)
    }

    /// Sends a request and waits for its result.
    func call<T: Decodable & Sendable>(_ body: RequestBody, as type: T.Type) throws -> T {
        let id = try send(body)
        return try result(type, from: try reply(to: id))
    }
}
