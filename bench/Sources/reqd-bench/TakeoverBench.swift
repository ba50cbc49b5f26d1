import Foundation
import ReqdProtocol

/// The takeover benchmark: three daemons on one PostgreSQL cluster (`REQD_BENCH_SET` names it),
/// 10,000 durable countdowns registered on the first, due in 55 s (within the default horizon,
/// so that a claim takes them), and the first is then SIGKILLed; the time from the kill until
/// the other two hold all 10,000 active in memory, read from their `status` every 10 ms. Prints `TAKEOVER_MS` and `LEASE_MS` (from `--lease`, default 15s, the shipped default).
func takeoverBench() {
    let count = 10_000
    let lease = option("--lease") ?? "15s"
    do {
        var daemons: [DaemonUnderTest] = []
        defer { for daemon in daemons where daemon.process.isRunning { daemon.stop() } }
        for _ in 0..<3 { daemons.append(try DaemonUnderTest(binary: reqdPath, extraArguments: ["--set", "cluster.lease=\(lease)"])) }
        try fill(socket: daemons[0].socket, count: count, connections: 4, prefix: "t") { _ in "\"duration_ms\":55000" }
        guard try activeCountdowns(daemons[0].socket) == count else { throw BenchError("the first daemon does not hold the countdowns") }
        let killed = now()
        kill(daemons[0].process.processIdentifier, SIGKILL)
        daemons[0].process.waitUntilExit()
        while now() - killed < 120 {
            let held = try activeCountdowns(daemons[1].socket) + activeCountdowns(daemons[2].socket)
            if held >= count {
                print("TAKEOVER_MS=\(Int((now() - killed) * 1000))")
                print("LEASE_MS=\(Int((Double(DurationText.parseNanoseconds(lease) ?? 0) / 1e6).rounded()))")
                return
            }
            usleep(10_000)
        }
        throw BenchError("the countdowns were not taken over within 120 s")
    } catch {
        FileHandle.standardError.write(Data("reqd-bench: \(error)\n".utf8))
        exit(1)
    }
}

/// The active countdowns a daemon holds, from its `status`.
private func activeCountdowns(_ socket: String) throws -> Int {
    let connection = try BenchSocket(path: socket)
    try connection.write(line(#"{"id":1,"op":"status"}"#))
    let reply = try JSONSerialization.jsonObject(with: Data(try connection.readLine())) as? [String: Any]
    let jobs = (reply?["result"] as? [String: Any])?["jobs"] as? [String: Any]
    return ((jobs?["countdown"] as? [String: Any])?["active"] as? Int) ?? 0
}
