import Foundation

/// Expiry lateness of durable countdowns: `--count` of them (default 100,000) registered over 4
/// pipelined connections, their deadlines spread over 10 s from `--lead` seconds after the start
/// (default 40), so that all of them are active, on disk, before the first fires. Each expiry is
/// written to the store while the others fire. Prints `FILLED_S`, `EXPIRED`, `LATE_P50`,
/// `LATE_P99` and `LATE_MAX` (milliseconds). bench/cluster runs it on both stores.
func latenessBench() {
    do {
        let count = Int(option("--count") ?? "") ?? 100_000
        let lead = Double(option("--lead") ?? "") ?? 40
        let daemon = try DaemonUnderTest(binary: reqdPath)
        defer { daemon.stop() }
        let started = wallNow()
        let spreadStart = started + lead
        try fill(socket: daemon.socket, count: count, connections: 4, prefix: "late") { index in
            "\"until\":\"\(rfc3339(spreadStart + 10 * Double(index) / Double(count)))\",\"tick_ms\":3600000"
        }
        let filled = wallNow() - started
        guard wallNow() < spreadStart else {
            throw BenchError("registering \(count) took \(String(format: "%.1f", filled)) s, past the lead of \(lead) s")
        }
        while wallNow() < spreadStart + 10.5 { usleep(100_000) }
        let lister = try BenchSocket(path: daemon.socket)
        let lateness = try listAll(lister, "\"state\":\"expired\"").compactMap { $0["late_by_ms"] as? Double }.sorted()
        print(String(format: "FILLED_S=%.1f", filled))
        print("EXPIRED=\(lateness.count)")
        print(String(format: "LATE_P50=%.3f", percentile(lateness, 0.5)))
        print(String(format: "LATE_P99=%.3f", percentile(lateness, 0.99)))
        print(String(format: "LATE_MAX=%.3f", lateness.last ?? .nan))
    } catch {
        FileHandle.standardError.write(Data("reqd-bench: \(error)\n".utf8))
        exit(1)
    }
}
