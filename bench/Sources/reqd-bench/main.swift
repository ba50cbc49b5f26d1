import Foundation
import Synchronization

// reqd-bench: drives a real reqd over its socket and reports registration throughput, expiry
// lateness and memory, or poll throughput against a local HTTP server. Every loop is bounded in
// count and time; socket traffic stays on a Unix socket and HTTP traffic on loopback.
//
//   reqd-bench [--reqd PATH] [--quick]                     countdowns (bench/countdown)
//   reqd-bench poll --url URL [--jobs N] [--every-ms M] [--seconds S] [--ephemeral]   poll jobs (bench/poll)
//   reqd-bench client --url URL [--connections N] [--seconds S]   the HTTP client alone (bench/poll)
//   reqd-bench queue [--daemons N]                    durable submits/s, 1 and 50 clients (bench/queue, bench/cluster)
//   reqd-bench takeover                               time for 3 daemons to take over a SIGKILLed one's jobs (bench/cluster)
//   reqd-bench lateness [--count N] [--lead S]        durable countdowns' expiry lateness (bench/cluster)
//   reqd-bench group --url URL [--members N] [--concurrency C] [--runs R]   one group's wall time (bench/group)
//   reqd-bench suite MEASUREMENT [...]                one measurement of bench/run (see SuiteBench.swift)
//   (any of them) --daemon-log-level LEVEL            the daemon's log level (default warning)
//   reqd-bench neighbors ROW [--url URL]              one row of bench/neighbors (see NeighborsBench.swift)

let arguments = CommandLine.arguments
func option(_ name: String) -> String? {
    arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
}
let quick = arguments.contains("--quick")
let binDirectory = URL(fileURLWithPath: arguments[0]).deletingLastPathComponent().path
let reqdPath = option("--reqd") ?? binDirectory + "/reqd"
/// The level the daemons under test log at: `warning` by default, so a measurement is of the work,
/// not of the logging; `--daemon-log-level info` measures what the default level costs.
let daemonLogLevel = option("--daemon-log-level") ?? "warning"

func now() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

func line(_ text: String) -> [UInt8] { Array((text + "\n").utf8) }

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.down)))]
}

/// Registrations from `clients` connections, each waiting for every reply; returns registrations per second.
/// Client `i` talks to `sockets[i % sockets.count]`.
///
/// `fields(client, index)` gives a request's fields after its `id`; by default a countdown.
func registrationRate(
    sockets: [String], clients: Int, perClient: Int, durable: Bool, timeLimit: Double,
    fields: (@Sendable (Int, Int) -> String)? = nil
) throws -> Double {
    let fields: @Sendable (Int, Int) -> String = fields ?? { client, index in
        "\"op\":\"register-countdown\",\"key\":\"r\(client)-\(index)\",\"duration_ms\":3600000\(durable ? "" : ",\"ephemeral\":true")"
    }
    let done = DispatchGroup()
    let failed = Mutex(0)
    let completed = Mutex(Array(repeating: 0, count: clients))
    let start = now()
    for client in 0..<clients {
        done.enter()
        let thread = Thread {
            defer { done.leave() }
            guard let connection = try? BenchSocket(path: sockets[client % sockets.count]) else { return }
            for index in 0..<perClient {
                let request = line("{\"id\":\(index),\(fields(client, index))}")
                guard (try? connection.roundTrip(request)) == true else {
                    failed.withLock { $0 += 1 }
                    return
                }
                completed.withLock { $0[client] = index + 1 }
                if index % 256 == 0, now() - start > timeLimit { return }
            }
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    done.wait()
    let elapsed = now() - start
    let failures = failed.withLock { $0 }
    if failures > 0 { throw BenchError("\(failures) registrations failed") }
    return Double(completed.withLock { $0.reduce(0, +) }) / elapsed
}

/// Pipelined countdown registrations on a few connections, for filling the daemon quickly.
func fill(socket: String, count: Int, connections: Int, prefix: String, body: (Int) -> String) throws {
    try pipeline(socket: socket, count: count, connections: connections) { index, connection, sequence in
        "\"op\":\"register-countdown\",\"key\":\"\(prefix)\(connection)-\(sequence)\",\(body(index))"
    }
}

/// Pipelined requests on a few connections, at most 2,000 unanswered per connection; every reply must be ok.
///
/// `fields(index, connection, sequence)` gives the request's fields after its `id`.
func pipeline(socket: String, count: Int, connections: Int, fields: (Int, Int, Int) -> String) throws {
    let window = 2_000
    let group = DispatchGroup()
    let failure = Mutex<String?>(nil)
    for c in 0..<connections {
        let share = count / connections + (c < count % connections ? 1 : 0)
        guard let connection = try? BenchSocket(path: socket) else { throw BenchError("connect failed") }
        let slots = DispatchSemaphore(value: window)
        group.enter()
        Thread {
            defer { group.leave() }
            for _ in 0..<share {
                guard let reply = try? connection.readLine() else {
                    failure.withLock { $0 = "reply missing" }
                    return
                }
                if !BenchSocket.isOK(reply) {
                    failure.withLock { $0 = "refused: \(String(decoding: reply.prefix(200), as: UTF8.self))" }
                }
                slots.signal()
            }
        }.start()
        var batch: [UInt8] = []
        for index in 0..<share {
            slots.wait()
            batch += line("{\"id\":\(index),\(fields(index * connections + c, c, index))}")
            if batch.count > 32_768 || index == share - 1 {
                try connection.write(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
    }
    group.wait()
    if let message = failure.withLock({ $0 }) { throw BenchError(message) }
}

func wallNow() -> Double { Date().timeIntervalSince1970 }

func rfc3339(_ seconds: Double) -> String {
    var whole = time_t(seconds)
    var parts = tm()
    gmtime_r(&whole, &parts)
    let millis = Int((seconds - Double(whole)) * 1000)
    return String(
        format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday, parts.tm_hour,
        parts.tm_min, parts.tm_sec, millis)
}

/// The foundation's benchmark: registrations/s, expiry lateness, memory.
func countdownBench() {
    do {
        print("reqd-bench: \(reqdPath)\(quick ? " (quick)" : "")")
        let scale = quick ? 10 : 1

        // 1. Registrations per second.
        var daemon = try DaemonUnderTest(binary: reqdPath)
        print("\n## Registrations per second (round trip: each client waits for each reply)\n")
        print("| clients | durable (ack after commit) | ephemeral |")
        print("|---|---|---|")
        for clients in [1, 50] {
            let durable = try registrationRate(
                sockets: [daemon.socket], clients: clients, perClient: (clients == 1 ? 5_000 : 1_000) / scale, durable: true, timeLimit: 20)
            let ephemeral = try registrationRate(
                sockets: [daemon.socket], clients: clients, perClient: (clients == 1 ? 20_000 : 2_000) / scale, durable: false, timeLimit: 20)
            print("| \(clients) | \(Int(durable))/s | \(Int(ephemeral))/s |")
        }
        daemon.stop()

        // 2. Expiry lateness: 100,000 countdowns whose deadlines are spread over 10 s.
        daemon = try DaemonUnderTest(binary: reqdPath)
        let count = 100_000 / scale
        let spreadStart = wallNow() + 12
        try fill(socket: daemon.socket, count: count, connections: 4, prefix: "late") { index in
            "\"until\":\"\(rfc3339(spreadStart + 10 * Double(index) / Double(count)))\",\"tick_ms\":3600000,\"ephemeral\":true"
        }
        let filledAfter = wallNow() - (spreadStart - 12)
        while wallNow() < spreadStart + 10.5 { usleep(100_000) }
        let lister = try BenchSocket(path: daemon.socket)
        let jobs = try listAll(lister, "\"state\":\"expired\"")
        let lateness = jobs.compactMap { $0["late_by_ms"] as? Double }.sorted()
        print("\n## Expiry lateness, \(count) countdowns spread over 10 s (registered in \(String(format: "%.1f", filledAfter)) s)\n")
        print("| expired | p50 | p99 | max |")
        print("|---|---|---|---|")
        print(String(format: "| %d | %.3f ms | %.3f ms | %.3f ms |", lateness.count, percentile(lateness, 0.5), percentile(lateness, 0.99), lateness.last ?? .nan))
        daemon.stop()

        // 3. Memory with 100,000 and 1,000,000 active countdowns.
        daemon = try DaemonUnderTest(binary: reqdPath)
        usleep(200_000)
        let baseline = daemon.residentBytes
        print("\n## Daemon RSS with active countdowns (ephemeral, 1 h, unwatched)\n")
        print("| countdowns | RSS | per countdown above idle |")
        print("|---|---|---|")
        print("| 0 | \(baseline / 1_048_576) MiB | - |")
        var registered = 0
        for target in [100_000 / scale, 1_000_000 / scale] {
            let start = now()
            try fill(socket: daemon.socket, count: target - registered, connections: 4, prefix: "m\(target)-") { _ in
                "\"duration_ms\":3600000,\"ephemeral\":true"
            }
            let elapsed = now() - start
            let added = target - registered
            registered = target
            usleep(300_000)
            let rss = daemon.residentBytes
            print("| \(target) | \(rss / 1_048_576) MiB | \((rss - baseline) / target) B ")
            print("  (pipelined fill rate: \(Int(Double(added) / elapsed)) registrations/s)")
        }
        daemon.stop()
    } catch {
        FileHandle.standardError.write(Data("reqd-bench: \(error)\n".utf8))
        exit(1)
    }
}

switch arguments.dropFirst().first {
case "poll": pollBench()
case "client": clientCeilingBench()
case "group": groupBench()
case "queue": queueBench()
case "takeover": takeoverBench()
case "lateness": latenessBench()
case "suite": suiteBench()
case "neighbors": neighborsBench()
case "fairness": fairnessBench()
default: countdownBench()
}
