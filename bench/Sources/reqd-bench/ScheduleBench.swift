import Foundation
import Synchronization

/// RSS per job above an idle daemon for `count` ephemeral jobs of one kind, one fresh daemon per
/// kind, one after the other: countdowns an hour out, schedules every hour (`every_ms`), and
/// schedules on a calendar (`*:0/15` in UTC); none sends a request. Prints each, and the
/// schedules' ratio to the countdown (issue 20's target: at most 2).
func scheduleMemory(count: Int) throws {
    func perJob(_ fields: @escaping (Int, Int) -> String) throws -> Int {
        let daemon = try DaemonUnderTest(binary: reqdPath)
        defer { daemon.stop() }
        usleep(300_000)
        let idle = daemon.residentBytes
        try pipeline(socket: daemon.socket, count: count, connections: 4) { _, connection, sequence in fields(connection, sequence) }
        usleep(500_000)
        return (daemon.residentBytes - idle) / count
    }
    let countdown = try perJob { c, s in
        "\"op\":\"register-countdown\",\"key\":\"c\(c)-\(s)\",\"duration_ms\":3600000,\"tick_ms\":3600000,\"ephemeral\":true"
    }
    let every = try perJob { c, s in "\"op\":\"register-schedule\",\"key\":\"e\(c)-\(s)\",\"every_ms\":3600000,\"ephemeral\":true" }
    let calendar = try perJob { c, s in
        "\"op\":\"register-schedule\",\"key\":\"k\(c)-\(s)\",\"calendar\":\"*:0/15\",\"tz\":\"UTC\",\"ephemeral\":true"
    }
    print("RSS_PER_COUNTDOWN=\(countdown)\nRSS_PER_SCHEDULE_EVERY=\(every)\nRSS_PER_SCHEDULE_CALENDAR=\(calendar)")
    print(String(format: "EVERY_TO_COUNTDOWN=%.2f\nCALENDAR_TO_COUNTDOWN=%.2f", Double(every) / Double(countdown), Double(calendar) / Double(countdown)))
}

/// `count` ephemeral schedules on `*:*:0/1` in UTC (no request), so `count` elapses fall on every
/// second; a watcher of 1,000 of them, spread over the registration order (their own scope),
/// collects their `elapsed` events for `seconds` and prints the lateness percentiles. With
/// `spreadMs`, each schedule has that `randomized_delay_ms`: the same elapses a second, spread
/// over the second instead of falling together (the arrival figures then mean nothing).
func scheduleLateness(count: Int, seconds: Double, spreadMs: Int? = nil) throws {
    let daemon = try DaemonUnderTest(binary: reqdPath)
    defer { daemon.stop() }
    let delay = spreadMs.map { ",\"randomized_delay_ms\":\($0)" } ?? ""
    try pipeline(socket: daemon.socket, count: count, connections: 4) { index, connection, sequence in
        let scope = index % max(1, count / 1_000) == 0 ? "watched" : "other"
        return "\"op\":\"register-schedule\",\"key\":\"t\(connection)-\(sequence)\",\"calendar\":\"*:*:0/1\",\"tz\":\"UTC\",\"scope\":\"\(scope)\",\"ephemeral\":true\(delay)"
    }
    try printBurstLateness(socket: daemon.socket, event: "elapsed", until: wallNow() + seconds, expected: nil)
}

/// The countdown beside `scheduleLateness`, in its shape: `bursts` times `count` ephemeral
/// countdowns, each burst of `count` due on one whole second, one burst a second; 1,000 of each
/// burst are watched and their `expired` events give the lateness percentiles.
func countdownBurstLateness(count: Int, bursts: Int) throws {
    let daemon = try DaemonUnderTest(binary: reqdPath)
    defer { daemon.stop() }
    let total = count * bursts
    // Registration runs at about 25,000/s pipelined; the first burst comes after it.
    let first = (wallNow() + 3 + Double(total) / 15_000).rounded(.up)
    try pipeline(socket: daemon.socket, count: total, connections: 4) { index, connection, sequence in
        let scope = index % max(1, count / 1_000) == 0 ? "watched" : "other"
        let due = first + Double(index / count)
        return "\"op\":\"register-countdown\",\"key\":\"b\(connection)-\(sequence)\",\"until\":\"\(rfc3339(due))\",\"tick_ms\":3600000,\"scope\":\"\(scope)\",\"ephemeral\":true"
    }
    guard wallNow() < first - 0.5 else { throw BenchError("registering took past the first burst") }
    let watched = (0..<total).count { $0 % max(1, count / 1_000) == 0 }
    try printBurstLateness(socket: daemon.socket, event: "expired", until: first + Double(bursts) + 1, expected: watched)
}

/// Watches the scope `watched` until `until` (or `expected` events), then prints the percentiles of
/// the events' `late_by_ms` and of their arrival here after their whole second.
///
/// The daemon reads its clock once per turn, and a turn fires at most `timerEntriesPerTurn` (256)
/// entries, so each `late_by_ms` is at most that many entries short of the truth; the arrival
/// shows the burst's length as the client sees it.
private func printBurstLateness(socket: String, event name: String, until: Double, expected: Int?) throws {
    let watcher = try BenchSocket(path: socket)
    try watcher.write(line("{\"id\":1,\"op\":\"watch\",\"scope\":\"watched\"}"))
    _ = try watcher.readLine()
    var lines: [(received: Double, line: [UInt8])] = []
    while wallNow() < until, lines.count < expected ?? .max {
        let reply = try watcher.readLine()
        lines.append((wallNow(), reply))
    }
    // Parsed afterwards, so the parsing of one event does not delay the reading of the next.
    var lateness: [Double] = []
    var arrival: [Double] = []
    for (received, reply) in lines {
        guard let event = try? JSONSerialization.jsonObject(with: Data(reply)) as? [String: Any],
            event["event"] as? String == name, let late = event["late_by_ms"] as? Double
        else { continue }
        lateness.append(late)
        arrival.append((received - floor(received)) * 1_000)
    }
    lateness.sort()
    arrival.sort()
    guard !lateness.isEmpty else { throw BenchError("no \(name) event was seen") }
    if let expected, lateness.count != expected { throw BenchError("\(lateness.count) of \(expected) watched jobs were seen") }
    print("EVENTS_SEEN=\(lateness.count)")
    print(String(format: "P50_MS=%.3f\nP99_MS=%.3f\nMAX_MS=%.3f", percentile(lateness, 0.5), percentile(lateness, 0.99), lateness.last ?? .nan))
    print(String(format: "ARRIVAL_P50_MS=%.3f\nARRIVAL_P99_MS=%.3f\nARRIVAL_MAX_MS=%.3f", percentile(arrival, 0.5), percentile(arrival, 0.99), arrival.last ?? .nan))
}
