import Foundation

/// Drives request/reply traffic over Unix sockets the way `redis-benchmark` does: one thread,
/// non-blocking sockets under poll(2), every request line built before the clock starts, and up
/// to `depth` requests in flight on each connection.
///
/// A thread per blocking connection made the client itself the bottleneck: with 50 connections
/// it used 1.4 of the machine's 2 cores, leaving the daemon the rest. This driver costs the
/// daemon's measurement little more than Redis's own client costs Redis's.
struct RoundTripDriver {
    /// The daemon's socket.
    var socket: String
    /// Requests in flight per connection: 1 for round trips, more for pipelining.
    var depth: Int
    /// The run stops here even when not every request has been answered.
    var timeLimit: Double
    /// The run also stops once this is set.
    var stop: StopFlag? = nil

    /// Sends `lines[c]` in order on connection `c` and returns replies per second over every
    /// connection; throws when a reply is not `"ok":true` or a connection fails.
    func run(lines: [[[UInt8]]]) throws -> Double {
        let connections = try lines.map { try Connection(path: socket, requests: $0) }
        var polls = connections.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let start = now()
        for connection in connections { try connection.fill(depth: depth) }
        var open = connections.filter { !$0.isDone }.count
        while open > 0, now() - start < timeLimit, stop?.isSet != true {
            for (index, connection) in connections.enumerated() {
                polls[index].events = Int16(POLLIN) | (connection.wantsWrite ? Int16(POLLOUT) : 0)
                polls[index].revents = 0
            }
            guard poll(&polls, nfds_t(polls.count), 1_000) >= 0 || errno == EINTR else {
                throw BenchError("poll failed: \(String(cString: strerror(errno)))")
            }
            for (index, connection) in connections.enumerated() where polls[index].revents != 0 && !connection.isDone {
                if polls[index].revents & Int16(POLLOUT) != 0 { try connection.flush() }
                if polls[index].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                    let count = read(connection.fd, &buffer, buffer.count)
                    guard count > 0 else {
                        if count < 0, errno == EAGAIN || errno == EINTR { continue }
                        throw BenchError("the daemon closed a connection")
                    }
                    try connection.consume(buffer[..<count])
                    try connection.fill(depth: depth)
                    if connection.isDone { open -= 1 }
                }
            }
        }
        let elapsed = now() - start
        return Double(connections.reduce(0) { $0 + $1.replies }) / elapsed
    }

    /// One non-blocking connection: its requests, what is still to be written, and reply counting.
    private final class Connection {
        let fd: Int32
        private let requests: [[UInt8]]
        private var sent = 0
        private(set) var replies = 0
        private var output: [UInt8] = []
        private var written = 0
        /// How much of `"ok":true` the current reply line has matched so far.
        private var matched = 0
        private var lineOK = false

        init(path: String, requests: [[UInt8]]) throws {
            let socket = try BenchSocket(path: path)
            fd = dup(socket.fd)
            self.requests = requests
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }

        deinit { close(fd) }

        var isDone: Bool { replies == requests.count }
        var wantsWrite: Bool { written < output.count }

        /// Queues requests up to `depth` in flight and writes what the socket takes.
        func fill(depth: Int) throws {
            while sent < requests.count, sent - replies < depth {
                output += requests[sent]
                sent += 1
            }
            try flush()
        }

        func flush() throws {
            while written < output.count {
                let count = output[written...].withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
                if count < 0 {
                    if errno == EAGAIN || errno == EINTR { return }
                    throw BenchError("write failed: \(String(cString: strerror(errno)))")
                }
                written += count
            }
            output.removeAll(keepingCapacity: true)
            written = 0
        }

        /// Counts the reply lines in `bytes`, checking that each one says `"ok":true`.
        func consume(_ bytes: ArraySlice<UInt8>) throws {
            let marker = BenchSocket.okMarker
            for byte in bytes {
                if byte == 10 {
                    guard lineOK else { throw BenchError("a request was refused") }
                    replies += 1
                    lineOK = false
                    matched = 0
                } else if !lineOK {
                    if byte == marker[matched] {
                        matched += 1
                        if matched == marker.count { lineOK = true }
                    } else {
                        matched = byte == marker[0] ? 1 : 0
                    }
                }
            }
        }
    }
}
