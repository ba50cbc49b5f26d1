import Foundation
import ReqdProtocol
import Synchronization

/// The neighbours benchmark (issue 22): what another client's load does to a user's deadlines.
///
///   neighbors ROW [--url URL] [--reqd PATH]
///   rows: quiet, polls, pipelined, list, watchers (polls needs --url)
///
/// Each row starts a fresh daemon. A follower registers 20,000 ephemeral countdowns on one
/// connection with `follow` (deadlines spread over 10 s, ticks an hour apart, so only expiry is
/// scheduled) and reads their `expired` events' `late_by_ms`. A prober sends `status` round trips
/// at 100/s on a second connection from before the follower registers until the last deadline.
/// The neighbour is the third client:
/// - quiet: none;
/// - polls: 5,000 poll jobs every 100 ms against URL;
/// - pipelined: one connection pipelining ephemeral registrations, 2,000 in flight;
/// - list: `list --state active --limit 5` in a loop, with 100,000 ended jobs retained (the walk
///   passes every one of them before it reaches an active job);
/// - watchers: 1,000 connections, each following its own countdown that ticks every 100 ms.
/// Prints the lateness and round-trip percentiles, the neighbour's own rate and the daemon's CPU
/// (cores) over the deadlines' window. Every loop is bounded in count and time.
func neighborsBench() {
    do {
        guard let row = arguments.dropFirst(2).first else { throw BenchError("neighbors: give a row") }
        try NeighborsRun(row: row, url: option("--url")).run()
    } catch {
        FileHandle.standardError.write(Data("reqd-bench: \(error)\n".utf8))
        exit(1)
    }
}

private struct NeighborsRun {
    let row: String
    let url: String?
    let followed = 20_000
    let spreadSeconds = 10.0

    func run() throws {
        let daemon = try DaemonUnderTest(
            binary: reqdPath,
            extraArguments: ["--set", "http.max_connections_per_host=64", "--set", "socket.max_pending_bytes=1073741824"])
        defer { daemon.stop() }
        let stop = StopFlag()
        let neighbour = try startNeighbour(daemon: daemon, stop: stop)
        usleep(500_000)

        let prober = StatusProber(socket: daemon.socket, stop: stop)
        prober.start()
        let follower = try BenchSocket(path: daemon.socket)
        var batch: [UInt8] = []
        for index in 0..<followed {
            let durationMs = 1_500 + Int(spreadSeconds * 1_000 * Double(index) / Double(followed))
            batch += line(
                "{\"id\":\(index),\"op\":\"register-countdown\",\"key\":\"f\(index)\",\"duration_ms\":\(durationMs),"
                    + "\"tick_ms\":3600000,\"ephemeral\":true,\"follow\":true}")
        }
        let registeredAt = now()
        try follower.write(batch)
        let cpu0 = daemon.cpuSeconds
        let window0 = now()
        var lateness: [Double] = []
        var replies = 0
        let deadline = registeredAt + 1.5 + spreadSeconds + 30
        while lateness.count < followed, now() < deadline {
            let text = try follower.readLine()
            guard let object = try JSONSerialization.jsonObject(with: Data(text)) as? [String: Any] else { continue }
            if object["event"] as? String == "expired", let late = object["late_by_ms"] as? Double {
                lateness.append(late)
            } else if object["ok"] as? Bool == true {
                replies += 1
            } else if object["ok"] as? Bool == false {
                throw BenchError("a follower registration was refused: \(String(decoding: text.prefix(200), as: UTF8.self))")
            }
        }
        let cpu1 = daemon.cpuSeconds
        let window1 = now()
        stop.set()
        let rate = try neighbour.finish()
        let roundTrips = prober.finish().sorted()
        let wakes = prober.wakeLateness.withLock { $0 }.sorted()
        guard lateness.count == followed else { throw BenchError("\(lateness.count) of \(followed) countdowns expired") }
        lateness.sort()
        print("ROW=\(row)")
        print(String(format: "LATE_P50_MS=%.3f\nLATE_P99_MS=%.3f\nLATE_MAX_MS=%.3f", percentile(lateness, 0.5), percentile(lateness, 0.99), lateness.last!))
        print(
            String(
                format: "STATUS_P50_MS=%.3f\nSTATUS_P99_MS=%.3f\nSTATUS_MAX_MS=%.3f\nSTATUS_COUNT=%d", percentile(roundTrips, 0.5),
                percentile(roundTrips, 0.99), roundTrips.last ?? .nan, roundTrips.count))
        print(String(format: "PROBER_WAKE_P99_MS=%.3f", percentile(wakes, 0.99)))
        print(String(format: "NEIGHBOR_RATE=%.0f\nDAEMON_CPU=%.2f", rate, (cpu1 - cpu0) / (window1 - window0)))
    }

    private func startNeighbour(daemon: DaemonUnderTest, stop: StopFlag) throws -> Neighbour {
        switch row {
        case "quiet":
            return Neighbour { 0 }
        case "polls":
            guard let url else { throw BenchError("the polls row needs --url") }
            try pipeline(socket: daemon.socket, count: 5_000, connections: 1) { _, _, _ in
                "\"op\":\"register-poll\",\"url\":\"\(url)\",\"every_ms\":100,\"until\":\"/state == \\\"never\\\"\",\"ephemeral\":true,"
                    + "\"scope\":\"neighbour\",\"max_failures\":1000000"
            }
            let counter = try BenchSocket(path: daemon.socket)
            let polls0 = try totalPolls(counter)
            let start = now()
            return Neighbour {
                let polls1 = try totalPolls(counter)
                return Double(polls1 - polls0) / (now() - start)
            }
        case "pipelined":
            // 30 s of registrations at the rate measured before this issue, at most.
            let lines = countdownLines(connections: 1, perConnection: 600_000, ephemeral: true, prefix: "n")
            let driver = RoundTripDriver(socket: daemon.socket, depth: 2_000, timeLimit: 30, stop: stop)
            return Neighbour.thread { try driver.run(lines: lines) }
        case "list":
            try pipeline(socket: daemon.socket, count: 100_000, connections: 4) { _, connection, sequence in
                "\"op\":\"register-countdown\",\"key\":\"e\(connection)-\(sequence)\",\"duration_ms\":1,\"ephemeral\":true"
            }
            usleep(300_000)
            let lister = try BenchSocket(path: daemon.socket)
            return Neighbour.thread {
                let start = now()
                var calls = 0
                let request = line("{\"id\":1,\"op\":\"list\",\"state\":\"active\",\"limit\":5}")
                while !stop.isSet, calls < 1_000_000, now() - start < 60 {
                    guard try lister.roundTrip(request) else { throw BenchError("list refused") }
                    calls += 1
                }
                return Double(calls) / (now() - start)
            }
        case "watchers":
            // Plain descriptors: a `BenchSocket` keeps a 1 MiB buffer, too much a thousand times over.
            var sockets: [Int32] = []
            for index in 0..<1_000 {
                let fd = try UnixSocket.connect(path: daemon.socket)
                let request = line(
                    "{\"id\":1,\"op\":\"register-countdown\",\"key\":\"w\(index)\",\"duration_ms\":600000,\"tick_ms\":100,"
                        + "\"ephemeral\":true,\"follow\":true}")
                guard request.withUnsafeBytes({ write(fd, $0.baseAddress!, $0.count) }) == request.count else {
                    throw BenchError("a watcher could not register")
                }
                sockets.append(fd)
            }
            let watchers = sockets
            return Neighbour.thread {
                defer { for fd in watchers { close(fd) } }
                return try countLines(on: watchers, stop: stop)
            }
        default:
            throw BenchError("neighbors: unknown row '\(row)'")
        }
    }
}

/// The neighbour's work: a closure that returns its rate once the run is over.
private final class Neighbour {
    private let finishing: () throws -> Double

    init(finishing: @escaping () throws -> Double) { self.finishing = finishing }

    /// Runs `work` on a thread of its own; its rate is the result.
    static func thread(_ work: @escaping @Sendable () throws -> Double) -> Neighbour {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<Double, any Error>>(.success(0))
        Thread {
            let outcome = Result { try work() }
            result.withLock { $0 = outcome }
            done.signal()
        }.start()
        return Neighbour {
            done.wait()
            return try result.withLock { $0 }.get()
        }
    }

    func finish() throws -> Double { try finishing() }
}

/// `status` round trips at 100/s on a connection of its own, timed, until told to stop.
private final class StatusProber: @unchecked Sendable {
    // @unchecked Sendable: `times` is guarded by its Mutex; the rest is set in init.
    private let socket: String
    private let stop: StopFlag
    private let times = Mutex<[Double]>([])
    /// How late the prober's own sleeps ended, in ms: a round trip cannot be shorter than the time
    /// the machine takes to run the prober again, so this says how much of it is the client's.
    let wakeLateness = Mutex<[Double]>([])
    private let done = DispatchSemaphore(value: 0)

    init(socket: String, stop: StopFlag) {
        self.socket = socket
        self.stop = stop
    }

    func start() {
        Thread {
            defer { self.done.signal() }
            guard let connection = try? BenchSocket(path: self.socket) else { return }
            let request = line("{\"id\":1,\"op\":\"status\"}")
            var next = now()
            for _ in 0..<10_000 where !self.stop.isSet {
                let start = now()
                guard (try? connection.roundTrip(request)) == true else { return }
                let end = now()
                self.times.withLock { $0.append((end - start) * 1_000) }
                next += 0.01
                if next > end {
                    usleep(useconds_t((next - end) * 1e6))
                    let late = (now() - next) * 1_000
                    self.wakeLateness.withLock { $0.append(late) }
                }
            }
        }.start()
    }

    func finish() -> [Double] {
        stop.set()
        done.wait()
        return times.withLock { $0 }
    }
}

/// Counts the lines that arrive on `sockets` per second until `stop`; bounded to 60 s.
private func countLines(on sockets: [Int32], stop: StopFlag) throws -> Double {
    var polls = sockets.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    var lines = 0
    let start = now()
    while !stop.isSet, now() - start < 60 {
        guard poll(&polls, nfds_t(polls.count), 100) >= 0 || errno == EINTR else { throw BenchError("poll failed") }
        for index in polls.indices where polls[index].revents != 0 {
            let count = read(polls[index].fd, &buffer, buffer.count)
            guard count > 0 else { throw BenchError("the daemon closed a watcher") }
            for byte in buffer[..<count] where byte == 10 { lines += 1 }
        }
    }
    return Double(lines) / (now() - start)
}

/// The polls answered so far over the neighbour's poll jobs.
private func totalPolls(_ connection: BenchSocket) throws -> Int {
    let jobs = try listAll(connection, "\"kind\":\"poll\"")
    return jobs.reduce(0) { $0 + (($1["poll"] as? [String: Any])?["polls"] as? Int ?? 0) }
}
