import Foundation

/// The poll benchmark: N poll jobs against one URL at a short interval; reports the requests per
/// second reqd sustains and its CPU time per request, measured over a window after a warm-up.
///
/// The condition never holds, so every job keeps polling until the benchmark cancels its scope.
func pollBench() {
    do {
        guard let url = option("--url") else { throw BenchError("give --url http://127.0.0.1:PORT/PATH") }
        let jobs = Int(option("--jobs") ?? "") ?? 10_000
        let everyMs = Int(option("--every-ms") ?? "") ?? 100
        let seconds = Double(option("--seconds") ?? "") ?? 20
        let warmup = Double(option("--warmup") ?? "") ?? 5
        let ephemeral = arguments.contains("--ephemeral")
        let daemon = try DaemonUnderTest(
            binary: reqdPath, extraArguments: ["--set", "poll.min_every=10ms", "--set", "http.max_connections_per_host=64"])
        defer { daemon.stop() }

        let start = now()
        try pipeline(socket: daemon.socket, count: jobs, connections: 4) { _, _, _ in
            "\"op\":\"register-poll\",\"url\":\"\(url)\",\"every_ms\":\(everyMs),\"until\":\"/state == \\\"never\\\"\","
                + "\"progress\":\"/progress\",\"scope\":\"bench\",\"max_failures\":1000000\(ephemeral ? ",\"ephemeral\":true" : "")"
        }
        let registered = now() - start
        usleep(UInt32(warmup * 1e6))
        let lister = try BenchSocket(path: daemon.socket)
        let (polls0, failures0) = try pollTotals(lister)
        let cpu0 = daemon.cpuSeconds
        let t0 = now()
        usleep(UInt32(seconds * 1e6))
        let (polls1, failures1) = try pollTotals(lister)
        let cpu1 = daemon.cpuSeconds
        let t1 = now()
        let requests = polls1 - polls0
        let rate = Double(requests) / (t1 - t0)
        let cpuPerRequest = (cpu1 - cpu0) / Double(max(1, requests))
        let rss = daemon.residentBytes
        try lister.write(line("{\"id\":2,\"op\":\"cancel\",\"scope\":\"bench\"}"))
        _ = try lister.readLine()

        print("| jobs | every | store | requests/s | CPU per request | daemon CPU | failed polls | RSS |")
        print("|---|---|---|---|---|---|---|---|")
        print(
            String(
                format: "| %d | %d ms | %@ | %.0f | %.1f µs | %.2f cores | %d | %d MiB |", jobs, everyMs,
                ephemeral ? "ephemeral" : "durable", rate, cpuPerRequest * 1e6, (cpu1 - cpu0) / (t1 - t0),
                failures1 - failures0, rss / 1_048_576))
        print(
            String(
                format: "\n(registered %d poll jobs in %.1f s; measured %.0f s after a %.0f s warm-up; demand %.0f requests/s)",
                jobs, registered, t1 - t0, warmup, Double(jobs) * 1000 / Double(everyMs)))
        print("POLL_RATE=\(Int(rate))")
    } catch {
        FileHandle.standardError.write(Data("reqd-bench: \(error)\n".utf8))
        exit(1)
    }
}

/// The sum of answered polls and of failed polls in a row over every poll job, from one `list`.
private func pollTotals(_ connection: BenchSocket) throws -> (polls: Int, failures: Int) {
    let jobs = try listAll(connection, "\"kind\":\"poll\",\"state\":\"active\"")
    var polls = 0
    var failures = 0
    for job in jobs {
        guard let poll = job["poll"] as? [String: Any] else { continue }
        polls += poll["polls"] as? Int ?? 0
        failures += poll["failures"] as? Int ?? 0
    }
    return (polls, failures)
}
