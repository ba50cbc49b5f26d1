import Foundation
import Synchronization
import ReqdProtocol

/// One measurement of `bench/run`'s suite, on a fresh daemon, printed as `NAME=value` lines.
///
///   suite control --clients N      ephemeral register-countdown round trips/s
///   suite durable --clients N      durable register-countdown round trips/s (ack after commit)
///   suite pipelined                ephemeral registrations/s, one connection, 2,000 in flight
///
/// The socket rows are driven by `RoundTripDriver`: one thread under poll(2), like redis-benchmark.
///   suite lateness --count N [--queries]   expiry lateness: N active countdowns, the first 100,000
///                                  of them expiring at 20,000/s; also RSS per countdown at N. With
///                                  --queries, another client sends list and status requests back
///                                  to back while they expire
///   suite memory --count N [--settle S] [--keep K] [--probe-seconds P]   RSS idle, at N active
///                                  countdowns, and S seconds (default 60) after all were cancelled
///                                  (100 scope cancels) and forgotten; with --keep, K of the 100
///                                  scopes stay; probes due every 2.7 ms for P s (default 8)
///   suite idle --seconds S         timer and thread wake-ups of an idle daemon, per minute
///   suite restart --count N [--kind K]   start to READY=1 with N persisted countdowns; with
///                                  --kind schedule, N durable schedules each on the calendar
///                                  `*-06-15 03:00:00 UTC` with a POST request
///                                  [--keep-state DIR: leave a copy of the filled store there]
///   suite submit --url URL [--count N] [--set KEY=VALUE ...]   requests/s that N ephemeral
///                                  submits drive to URL, the daemon given the settings
///   suite target-rate --url URL [--count N] [--rate R] [--burst B]   N submits to a target
///                                  limited to R (default 200/s) with burst B (1): the achieved
///                                  rate and the most answers in one second
///   suite breaker [--per-second N] [--seconds S]   a target behind a breaker that fails from 3 s
///                                  to 6 s of an S-second (10) run of N submits a second (100): the
///                                  failed answers before it opened, requests sent while open
///                                  (probes only), and the jobs that succeeded
///   suite schedule-memory --count N   RSS per job at N ephemeral countdowns, N schedules every
///                                  hour and N on a calendar, each on a fresh daemon
///   suite schedule-lateness --count N [--seconds S]   N schedules on *:*:0/1, all elapsing every
///                                  second; the lateness of 1,000 of them, watched, over S s (10);
///                                  --spread-ms D gives each a randomized delay up to D ms
///   suite burst-lateness --count N [--bursts B]   the countdowns in that shape: B bursts of N
///                                  countdowns, each burst due on one whole second; the lateness
///                                  of 1,000 of each burst, watched
///   suite retained --url URL [--count N] [--kind K] [--ephemeral]   RSS per ended, retained
///                                  job: N durable jobs (default 100,000, the default
///                                  jobs.max_retained), a third each of countdowns, submits and
///                                  polls to URL, all ended and kept; with --kind
///                                  countdown|submit|poll, only that kind; with --ephemeral, every
///                                  job ephemeral (its attempt log in memory)
func suiteBench() {
    do {
        let clients = Int(option("--clients") ?? "") ?? 1
        let count = Int(option("--count") ?? "") ?? 100_000
        switch arguments.dropFirst(2).first {
        case "control", "durable":
            let durable = arguments[2] == "durable"
            let daemon = try DaemonUnderTest(binary: reqdPath)
            defer { daemon.stop() }
            let perClient = clients == 1 ? (durable ? 5_000 : 20_000) : (durable ? 1_000 : 2_000)
            let lines = countdownLines(connections: clients, perConnection: perClient, ephemeral: !durable)
            let rate = try RoundTripDriver(socket: daemon.socket, depth: 1, timeLimit: 20).run(lines: lines)
            print("RATE=\(Int(rate))")
        case "pipelined":
            let daemon = try DaemonUnderTest(binary: reqdPath)
            defer { daemon.stop() }
            let lines = countdownLines(connections: 1, perConnection: 200_000, ephemeral: true)
            let rate = try RoundTripDriver(socket: daemon.socket, depth: 2_000, timeLimit: 30).run(lines: lines)
            print("RATE=\(Int(rate))")
        case "lateness":
            try latenessAndMemory(count: count, queries: arguments.contains("--queries"))
        case "memory":
            try memoryComesBack(
                count: count, settle: Double(option("--settle") ?? "") ?? 60, keep: Int(option("--keep") ?? "") ?? 0,
                probeSeconds: Double(option("--probe-seconds") ?? "") ?? 8)
        case "idle":
            try idleWakeups(seconds: Double(option("--seconds") ?? "") ?? 60)
        case "restart":
            let kind = option("--kind") ?? "countdown"
            guard ["countdown", "schedule"].contains(kind) else { throw BenchError("--kind takes countdown or schedule") }
            try restartToReady(count: count, schedules: kind == "schedule", keepingStateIn: option("--keep-state"))
        case "submit":
            guard let url = option("--url") else { throw BenchError("give --url http://127.0.0.1:PORT/PATH") }
            try submitDriveRate(url: url, count: count, settings: settings())
        case "target-rate":
            guard let url = option("--url") else { throw BenchError("give --url http://127.0.0.1:PORT/PATH") }
            try targetRateAccuracy(url: url, count: count, rate: option("--rate") ?? "200/s", burst: Int(option("--burst") ?? "") ?? 1)
        case "breaker":
            try breakerBench(
                perSecond: Int(option("--per-second") ?? "") ?? 100, seconds: Double(option("--seconds") ?? "") ?? 10, failFrom: 3,
                failUntil: 6)
        case "schedule-memory":
            try scheduleMemory(count: count)
        case "schedule-lateness":
            try scheduleLateness(count: count, seconds: Double(option("--seconds") ?? "") ?? 10, spreadMs: option("--spread-ms").flatMap { Int($0) })
        case "burst-lateness":
            try countdownBurstLateness(count: count, bursts: Int(option("--bursts") ?? "") ?? 5)
        case "retained":
            guard let url = option("--url") else { throw BenchError("give --url http://127.0.0.1:PORT/PATH") }
            let kinds = ["countdown", "submit", "poll"]
            let only = option("--kind")
            guard only.map(kinds.contains) ?? true else { throw BenchError("--kind takes countdown, submit or poll") }
            try retainedMemory(
                url: url, count: count, kinds: only.flatMap(kinds.firstIndex(of:)).map { [$0] } ?? [0, 1, 2],
                ephemeral: arguments.contains("--ephemeral"))
        default:
            throw BenchError("suite: unknown measurement '\(arguments.dropFirst(2).first ?? "")'")
        }
    } catch {
        FileHandle.standardError.write(Data("reqd-bench: \(error)\n".utf8))
        exit(1)
    }
}

/// `count` active countdowns: 100,000 expiring at 20,000/s, the rest an hour out. Prints the
/// lateness percentiles of the expiring ones and the RSS per countdown above the idle daemon.
/// With `queries`, a client sends `list` and `status` requests one after another from half a
/// second before the first deadline to the last, and their count and round trips are printed too.
private func latenessAndMemory(count: Int, queries: Bool) throws {
    // On a daemon from before list pages, the list of 100,000 expired jobs is one reply of about 30 MB.
    let daemon = try DaemonUnderTest(binary: reqdPath, extraArguments: ["--set", "socket.max_pending_bytes=1073741824"])
    defer { daemon.stop() }
    usleep(200_000)
    let baseline = daemon.residentBytes
    let expiring = min(count, 100_000)
    let window = Double(expiring) / 20_000
    // Leave time to register everything (about 25,000/s pipelined) before the first deadline.
    let firstDeadline = wallNow() + 5 + Double(count) / 15_000
    try fill(socket: daemon.socket, count: count, connections: 4, prefix: "l") { index in
        let deadline = index < expiring ? firstDeadline + window * Double(index) / Double(expiring) : firstDeadline + 3_600
        return "\"until\":\"\(rfc3339(deadline))\",\"tick_ms\":3600000,\"ephemeral\":true"
    }
    guard wallNow() < firstDeadline - 0.5 else { throw BenchError("registering took past the first deadline") }
    usleep(300_000)
    print("RSS_PER_COUNTDOWN=\((daemon.residentBytes - baseline) / count)")
    let querying = queries ? try QueryLoop(socket: daemon.socket, from: firstDeadline - 0.5, until: firstDeadline + window) : nil
    while wallNow() < firstDeadline + window + 0.5 { usleep(100_000) }
    if let querying { try querying.report() }
    let lister = try BenchSocket(path: daemon.socket)
    let jobs = try listAll(lister, "\"state\":\"expired\"")
    let lateness = jobs.compactMap { $0["late_by_ms"] as? Double }.sorted()
    guard lateness.count == expiring else { throw BenchError("\(lateness.count) of \(expiring) countdowns expired") }
    print(String(format: "P50_MS=%.3f\nP99_MS=%.3f\nMAX_MS=%.3f", percentile(lateness, 0.5), percentile(lateness, 0.99), lateness.last ?? .nan))
}

/// Prints the daemon's RSS while idle, at `count` active ephemeral countdowns in 100 scopes, and
/// `settle` seconds after cancelling every scope and letting a one-second retention pass (a
/// `status` then forgets them, since retention runs on events). `TARGET_MB` is issue 23's bound:
/// twice the idle RSS plus 32 MB.
private func memoryComesBack(count: Int, settle: Double, keep: Int, probeSeconds: Double) throws {
    guard (0..<100).contains(keep) else { throw BenchError("--keep takes 0 to 99 of the 100 scopes") }
    let daemon = try DaemonUnderTest(binary: reqdPath, extraArguments: ["--set", "jobs.retention=1s"])
    defer { daemon.stop() }
    usleep(500_000)
    let idle = daemon.residentBytes
    try fill(socket: daemon.socket, count: count, connections: 4, prefix: "m") { index in
        "\"duration_ms\":3600000,\"scope\":\"m\(index % 100)\",\"ephemeral\":true"
    }
    usleep(500_000)
    let peak = daemon.residentBytes
    let client = try BenchSocket(path: daemon.socket)
    func call(_ request: String) throws -> [String: Any] {
        try client.write(line(request))
        guard let object = try JSONSerialization.jsonObject(with: Data(try client.readLine())) as? [String: Any],
            object["ok"] as? Bool == true
        else { throw BenchError("\(request) failed") }
        return object
    }
    var cancelled = 0
    for scope in keep..<100 {
        let reply = try call("{\"id\":\(scope),\"op\":\"cancel\",\"scope\":\"m\(scope)\"}")
        cancelled += ((reply["result"] as? [String: Any])?["count"] as? Int) ?? 0
    }
    let kept = (0..<count).count { $0 % 100 < keep }
    guard cancelled == count - kept else { throw BenchError("cancelled \(cancelled) of \(count - kept)") }
    // Probes: 3,000 countdowns (by default) due over the 8 s from 1.5 s after the cancels, through the
    // forgetting (a share a turn, from the first turn after the retention), the shrink passes
    // and the memory releases; their lateness is reported. They are registered now, pipelined; a
    // `status` at 1.5 s makes sure the forgetting has begun.
    let watcher = try BenchSocket(path: daemon.socket)
    try watcher.write(line("{\"id\":1,\"op\":\"watch\",\"scope\":\"probe\"}"))
    _ = try watcher.readLine()
    // One every 2.7 ms: no 50 ms without a deadline, so the memory release waits until they end,
    // or, with `--probe-seconds` past 10, is forced in their midst.
    let probes = Int(375 * probeSeconds)
    let lateness = Mutex<[(late: Double, at: Double)]>([])
    let reader = Thread {
        while let reply = try? watcher.readLine() {
            guard let event = try? JSONSerialization.jsonObject(with: Data(reply)) as? [String: Any],
                event["event"] as? String == "expired", let late = event["late_by_ms"] as? Double
            else { continue }
            if lateness.withLock({ $0.append((late, wallNow())); return $0.count }) == probes { return }
        }
    }
    reader.start()
    let cancelledRSS = daemon.residentBytes
    let probeStart = wallNow() + 1.5
    try pipeline(socket: daemon.socket, count: probes, connections: 1) { index, _, _ in
        let due = probeStart + probeSeconds * Double(index) / Double(probes)
        return "\"op\":\"register-countdown\",\"key\":\"p\(index)\",\"until\":\"\(rfc3339(due))\",\"scope\":\"probe\",\"ephemeral\":true,\"tick_ms\":3600000"
    }
    guard wallNow() < probeStart - 0.1 else { throw BenchError("registering the probes took too long") }
    usleep(useconds_t((probeStart - 0.1 - wallNow()) * 1_000_000))
    _ = try call("{\"id\":1000,\"op\":\"status\"}")
    let forgotten = wallNow()
    while wallNow() < forgotten + settle { usleep(200_000) }
    // Ended jobs leave a share a turn: the last probes' retention passed while the daemon was
    // idle, so the first `status` may still see some.
    var jobs: [String: [String: Int]] = [:]
    var held = -1
    for attempt in 0..<10 where held != kept {
        let status = try call("{\"id\":\(1001 + attempt),\"op\":\"status\"}")
        jobs = (status["result"] as? [String: Any])?["jobs"] as? [String: [String: Int]] ?? [:]
        held = jobs.values.flatMap(\.values).reduce(0, +)
        if held != kept { usleep(50_000) }
    }
    let after = daemon.residentBytes
    let mb = { (bytes: Int) in String(format: "%.1f", Double(bytes) / 1_048_576) }
    print("IDLE_MB=\(mb(idle))\nPEAK_MB=\(mb(peak))\nCANCELLED_MB=\(mb(cancelledRSS))\nAFTER_MB=\(mb(after))")
    print("TARGET_MB=\(mb(2 * idle + 32 * 1_048_576))")
    if kept > 0 {
        // What the kept jobs took at the peak, had the others never come.
        print("KEPT=\(kept)\nKEPT_SHARE_MB=\(mb(idle + (peak - idle) * kept / count))")
    }
    let received = lateness.withLock { $0 }
    let late = received.map(\.late).sorted()
    let worst = received.sorted { $0.late > $1.late }.prefix(5)
    print("PROBE_WORST=" + worst.map { String(format: "%.1fms@%.2fs", $0.late, $0.at - probeStart) }.joined(separator: ","))
    guard late.count == probes else { throw BenchError("\(late.count) of \(probes) probes expired") }
    print(String(format: "PROBE_P50_MS=%.3f\nPROBE_P99_MS=%.3f\nPROBE_MAX_MS=%.3f", percentile(late, 0.5), percentile(late, 0.99), late.last ?? Double.nan))
    guard held == kept else { throw BenchError("\(held) jobs held after the retention, not \(kept): \(jobs)") }
}

/// Counts how often the idle daemon's threads were scheduled (`/proc/PID/task/*/schedstat`, the
/// third field) over `seconds`, with no jobs and no watchdog.
private func idleWakeups(seconds: Double) throws {
    let daemon = try DaemonUnderTest(binary: reqdPath)
    defer { daemon.stop() }
    let pid = daemon.process.processIdentifier
    func timeslices() -> [String: Int] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var counts: [String: Int] = [:]
        for task in tasks {
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8)) ?? ""
            counts[task] = Int(text.split(separator: " ").dropFirst(2).first?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "")
        }
        return counts
    }
    // Let start-up settle: the first connection (the readiness probe) and its close.
    sleep(2)
    let before = timeslices()
    usleep(useconds_t(seconds * 1_000_000))
    // Per thread: a thread that started meanwhile counts whole, one that ended is lost (rare when idle).
    let woken = timeslices().reduce(0) { $0 + $1.value - (before[$1.key] ?? 0) }
    print("WAKEUPS_PER_MINUTE=\(Int((Double(woken) * 60 / seconds).rounded()))")
}

/// Persists `count` countdowns (or `schedules`), stops the daemon, and times a fresh start on the
/// same state until it sends READY=1 on its notify socket. With `keepingStateIn`, a copy of the
/// filled store is left there, for `bench/ready.py`.
///
/// Each schedule has a calendar rule and a request, so its row's detail holds settings, counters
/// and a request, as a production schedule's does; none elapses during the run.
private func restartToReady(count: Int, schedules: Bool, keepingStateIn copy: String? = nil) throws {
    let first = try DaemonUnderTest(binary: reqdPath)
    if schedules {
        try pipeline(socket: first.socket, count: count, connections: 4) { index, _, _ in
            """
            "op":"register-schedule","key":"s\(index)","calendar":"*-06-15 03:00:00","tz":"UTC",\
            "request":{"method":"POST","url":"http://127.0.0.1:9/hook?n=\(index)",\
            "headers":["Content-Type: application/json"],"body":"{\\"n\\":\(index)}","max_attempts":5}
            """
        }
    } else {
        try fill(socket: first.socket, count: count, connections: 4, prefix: "r") { _ in "\"duration_ms\":36000000" }
    }
    let state = first.directory + "/state"
    let kept = NSTemporaryDirectory() + "reqd-bench-restart-\(getpid())"
    try? FileManager.default.removeItem(atPath: kept)
    kill(first.process.processIdentifier, SIGTERM)
    first.process.waitUntilExit()
    try FileManager.default.moveItem(atPath: state, toPath: kept)
    if let copy {
        try? FileManager.default.removeItem(atPath: copy)
        try FileManager.default.copyItem(atPath: kept, toPath: copy)
    }
    try? FileManager.default.removeItem(atPath: first.directory)
    defer { try? FileManager.default.removeItem(atPath: kept) }

    let notifyPath = kept + "/notify.sock"
    let notify: Int32
    do {
        notify = try UnixSocket.bind(path: notifyPath, type: Int32(SOCK_DGRAM.rawValue))
    } catch {
        throw BenchError("cannot bind the notify socket: \(error)")
    }
    defer { close(notify) }
    var timeout = timeval(tv_sec: 120, tv_usec: 0)
    setsockopt(notify, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))

    let process = Process()
    process.executableURL = URL(fileURLWithPath: reqdPath)
    process.arguments = [
        "--socket", kept + "/reqd.sock", "--state-dir", kept, "--log-level", "warning", "--log-target", "stderr",
        "--set", "jobs.max_active=5000000",
    ] + BenchLimits.arguments(for: reqdPath)
    var environment = ProcessInfo.processInfo.environment
    environment["NOTIFY_SOCKET"] = notifyPath
    process.environment = environment
    let start = now()
    try process.run()
    defer {
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
    }
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let received = recv(notify, &buffer, buffer.count, 0)
        guard received > 0 else { throw BenchError("no READY=1 within 120 s") }
        if String(decoding: buffer[..<received], as: UTF8.self).split(separator: "\n").contains("READY=1") { break }
    }
    print(String(format: "READY_SECONDS=%.3f", now() - start))
}

/// RSS above the idle daemon per ended job it keeps, at `count` retained jobs: a third each of
/// countdowns (1 ms), submits (`max_attempts` 1) and polls whose condition holds on the first
/// answer, all durable (or all `ephemeral`, which keep their attempt logs in memory), to `url`
/// (bench/nginx.sh's 48-byte JSON file), each with its own query. Each submit and poll keeps that
/// answer as its result.
private func retainedMemory(url: String, count: Int, kinds: [Int], ephemeral: Bool) throws {
    let daemon = try DaemonUnderTest(
        binary: reqdPath, extraArguments: ["--set", "jobs.max_retained=\(count)", "--set", "http.max_connections_per_host=64"])
    defer { daemon.stop() }
    usleep(500_000)
    let idle = daemon.residentBytes
    let start = now()
    try pipeline(socket: daemon.socket, count: count, connections: 4) { index, _, _ in
        let job =
            switch kinds[index % kinds.count] {
            case 0: "\"op\":\"register-countdown\",\"duration_ms\":1"
            case 1: "\"op\":\"submit\",\"url\":\"\(url)?s=\(index)\",\"max_attempts\":1"
            default: "\"op\":\"register-poll\",\"url\":\"\(url)?p=\(index)\",\"every_ms\":1000,\"until\":\"/state == \\\"running\\\"\""
            }
        return ephemeral ? job + ",\"ephemeral\":true" : job
    }
    let status = try BenchSocket(path: daemon.socket)
    var ended: [String: [String: Int]] = [:]
    while true {
        try status.write(line("{\"id\":1,\"op\":\"status\"}"))
        guard let object = try JSONSerialization.jsonObject(with: Data(try status.readLine())) as? [String: Any],
            let jobs = (object["result"] as? [String: Any])?["jobs"] as? [String: [String: Int]]
        else { throw BenchError("status failed") }
        if jobs.values.allSatisfy({ ($0["active"] ?? 0) == 0 }) {
            ended = jobs
            break
        }
        guard now() - start < 300 else { throw BenchError("the jobs did not end within 300 s: \(jobs)") }
        usleep(100_000)
    }
    let kept = ended.values.flatMap(\.values).reduce(0, +)
    guard kept == count else { throw BenchError("\(kept) of \(count) jobs are kept: \(ended)") }
    let failed = ended.values.flatMap { $0.filter { $0.key != "succeeded" && $0.key != "expired" }.values }.reduce(0, +)
    guard failed == 0 else { throw BenchError("\(failed) jobs did not succeed: \(ended)") }
    // What stays is what retention keeps: the dedupe windows of the last submits (3 s by
    // default) have passed, and the shrink pass that follows has given their tables back.
    usleep(5_000_000)
    print("RETAINED=\(kept)")
    print("RSS_PER_RETAINED_JOB=\((daemon.residentBytes - idle) / count)")
}

/// Submits `count` ephemeral request jobs to `url` (each with its own query, so none is
/// deduplicated) as fast as the socket takes them, and times them until every one has ended.
/// Prints the requests per second and fails when any request did not succeed.
private func submitDriveRate(url: String, count: Int, settings: [String]) throws {
    let daemon = try DaemonUnderTest(binary: reqdPath, extraArguments: ["--set", "http.max_connections_per_host=64"] + settings)
    defer { daemon.stop() }
    let start = now()
    try pipeline(socket: daemon.socket, count: count, connections: 4) { index, _, _ in
        "\"op\":\"submit\",\"url\":\"\(url)?n=\(index)\",\"max_attempts\":1,\"ephemeral\":true"
    }
    let requests = try waitForRequestJobs(socket: daemon.socket, timeLimit: 120)
    let failed = requests.filter { $0.key != "succeeded" && $0.key != "active" }.values.reduce(0, +)
    guard failed == 0 else { throw BenchError("\(failed) of \(count) requests did not succeed: \(requests)") }
    print("RATE=\(Int(Double(count) / (now() - start)))")
}

/// `register-countdown` lines for each connection, each with its own key, an hour long.
func countdownLines(connections: Int, perConnection: Int, ephemeral: Bool, prefix: String = "r") -> [[[UInt8]]] {
    (0..<connections).map { connection in
        (0..<perConnection).map { index in
            line(
                "{\"id\":\(index),\"op\":\"register-countdown\",\"key\":\"\(prefix)\(connection)-\(index)\",\"duration_ms\":3600000"
                    + (ephemeral ? ",\"ephemeral\":true}" : "}"))
        }
    }
}

/// Every `--set KEY=VALUE` of the command line, as daemon arguments.
private func settings() -> [String] {
    arguments.indices.filter { arguments[$0] == "--set" && $0 + 1 < arguments.count }.flatMap { ["--set", arguments[$0 + 1]] }
}
