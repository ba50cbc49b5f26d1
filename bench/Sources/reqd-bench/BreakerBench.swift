import Foundation
import ReqdTestSupport
import Synchronization

/// A target that starts failing, behind a circuit breaker (issue 21 §8).
///
/// An in-process HTTP server answers 200, then 503 from `failFrom` to `failUntil` seconds, then
/// 200 again. One client submits `perSecond` requests a second for `seconds` seconds (each up to
/// 20 attempts, backoff 100 ms to 500 ms) to a target with `breaker_failure_ratio = 0.5`,
/// `breaker_min_requests = 20`, `breaker_window = "2s"` and `breaker_open_for = "1s"`; another
/// reads `status --targets` every 5 ms for the breaker's changes. Printed: the failed answers the
/// server gave from its first failure until the breaker opened, the requests that reached it while
/// the breaker was open (which must be the failed probes alone, one per reopening), the probes,
/// and how many jobs succeeded in the end.
func breakerBench(perSecond: Int, seconds: Double, failFrom: Double, failUntil: Double) throws {
    let started = wallNow()
    let arrivals = Mutex<[(at: Double, failed: Bool)]>([])
    let server = try TestHTTPServer { _ in
        let at = wallNow()
        let failed = at - started >= failFrom && at - started < failUntil
        arrivals.withLock { $0.append((at, failed)) }
        return TestHTTPServer.Reply(status: failed ? 503 : 200, body: "{}")
    }
    defer { server.shutdown() }
    let target = "127.0.0.1:\(server.port)"
    let table = "targets.\"\(target)\""
    let daemon = try DaemonUnderTest(
        binary: reqdPath,
        extraArguments: [
            "--set", "\(table).breaker_failure_ratio=0.5", "--set", "\(table).breaker_min_requests=20",
            "--set", "\(table).breaker_window=2s", "--set", "\(table).breaker_open_for=1s",
        ])
    defer { daemon.stop() }

    // The breaker's changes as status shows them: each distinct (state, since).
    let changes = Mutex<[(state: String, since: String)]>([])
    let stop = StopFlag()
    let watcher = try BenchSocket(path: daemon.socket)
    let reader = Thread {
        while !stop.isSet {
            guard (try? watcher.write(line("{\"id\":1,\"op\":\"status\",\"targets\":true}"))) != nil,
                let reply = try? watcher.readLine(),
                let object = try? JSONSerialization.jsonObject(with: Data(reply)) as? [String: Any],
                let targets = (object["result"] as? [String: Any])?["targets"] as? [[String: Any]]
            else { return }
            if let breaker = targets.first(where: { $0["target"] as? String == target })?["breaker"] as? [String: Any],
                let state = breaker["state"] as? String, let since = breaker["since"] as? String
            {
                changes.withLock { list in
                    if list.last.map({ $0.state != state || $0.since != since }) ?? true { list.append((state, since)) }
                }
            }
            usleep(5_000)
        }
    }
    reader.start()

    let submitter = try BenchSocket(path: daemon.socket)
    let total = Int(Double(perSecond) * seconds)
    for index in 0..<total {
        let due = started + Double(index) / Double(perSecond)
        let wait = due - wallNow()
        if wait > 0 { usleep(UInt32(wait * 1_000_000)) }
        let request = "{\"id\":\(index),\"op\":\"submit\",\"url\":\"\(server.url("/b?n=\(index)"))\",\"max_attempts\":20,"
            + "\"backoff_min_ms\":100,\"backoff_max_ms\":500,\"ephemeral\":true}"
        guard try submitter.roundTrip(line(request)) else { throw BenchError("submit \(index) was refused") }
    }
    let jobs = try waitForRequestJobs(socket: daemon.socket, timeLimit: 60)
    stop.set()
    usleep(50_000)

    let seen = changes.withLock { $0 }
    let format = ISO8601DateFormatter()
    format.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    func time(_ text: String) -> Double { format.date(from: text)?.timeIntervalSince1970 ?? 0 }
    guard let firstOpen = seen.first(where: { $0.state == "open" }).map({ time($0.since) }),
        let closed = seen.last(where: { $0.state == "closed" }).map({ time($0.since) }), closed > firstOpen
    else { throw BenchError("the breaker was not seen to open and close: \(seen)") }
    let all = arrivals.withLock { $0 }
    guard let firstFailure = all.first(where: \.failed)?.at else { throw BenchError("the server never failed") }
    let failedBeforeOpen = all.filter { $0.failed && $0.at >= firstFailure && $0.at <= firstOpen }.count
    // Requests already on the wire when the breaker opened reach the server within a millisecond
    // or so after it; the probe that closes it arrives a moment before the close. Between the two
    // margins only failed probes may arrive: one for each time it opened again.
    let margin = 0.005
    let inFlightAtOpen = all.filter { $0.at > firstOpen && $0.at <= firstOpen + margin }.count
    let whileOpen = all.filter { $0.at > firstOpen + margin && $0.at < closed - margin }.count
    let metrics = try daemonMetrics(socket: daemon.socket)
    let probes = Int(metric(metrics, "reqd_breaker_transitions_total{state=\"half_open\"}") ?? -1)
    let opens = Int(metric(metrics, "reqd_breaker_transitions_total{state=\"open\"}") ?? -1)
    print("FAILED_BEFORE_OPEN=\(failedBeforeOpen)")
    print(String(format: "FIRST_FAILURE_TO_OPEN_MS=%.1f", (firstOpen - firstFailure) * 1_000))
    print(String(format: "OPEN_SECONDS=%.2f", closed - firstOpen))
    print("IN_FLIGHT_AT_OPEN=\(inFlightAtOpen)\nSENT_WHILE_OPEN=\(whileOpen)\nPROBES=\(probes)\nOPENS=\(opens)")
    print("NOT_PROBES=\(whileOpen - (opens - 1))")
    let offsets = all.filter { $0.at > firstOpen && $0.at < closed + margin }.map { String(format: "%.1f", ($0.at - firstOpen) * 1_000) }
    print("ARRIVALS_FROM_OPEN_TO_CLOSE_MS=\(offsets.joined(separator: ","))")
    print("JOBS=\(total)\nSUCCEEDED=\(jobs["succeeded"] ?? 0)")
}

/// Waits until no request job is active; returns the request jobs by state.
func waitForRequestJobs(socket: String, timeLimit: Double) throws -> [String: Int] {
    let status = try BenchSocket(path: socket)
    let start = wallNow()
    while true {
        try status.write(line("{\"id\":1,\"op\":\"status\"}"))
        guard let object = try JSONSerialization.jsonObject(with: Data(try status.readLine())) as? [String: Any],
            let jobs = (object["result"] as? [String: Any])?["jobs"] as? [String: [String: Int]]
        else { throw BenchError("status failed") }
        let requests = jobs["request"] ?? [:]
        if (requests["active"] ?? 0) == 0 { return requests }
        guard wallNow() - start < timeLimit else { throw BenchError("the request jobs did not end within \(Int(timeLimit)) s: \(requests)") }
        usleep(50_000)
    }
}

/// The metrics text the daemon's `metrics` operation gives.
private func daemonMetrics(socket: String) throws -> String {
    let connection = try BenchSocket(path: socket)
    try connection.write(line("{\"id\":1,\"op\":\"metrics\"}"))
    guard let object = try JSONSerialization.jsonObject(with: Data(try connection.readLine())) as? [String: Any],
        let text = (object["result"] as? [String: Any])?["text"] as? String
    else { throw BenchError("metrics failed") }
    return text
}

/// The value of the sample `name` (with its labels) in Prometheus text.
private func metric(_ text: String, _ name: String) -> Double? {
    text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
}
