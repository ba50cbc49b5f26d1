import Foundation

/// The durable queue benchmark: `submit`s per second, each acknowledged only after its commit,
/// from 1 client and from 50 concurrent clients, each waiting for every reply.
///
/// The requests go to a closed port on loopback with `max_attempts: 1`, so each job ends after
/// one refused connection and delivery costs little next to the commits being measured.
///
/// `--daemons N` starts N daemons with the same settings (for PostgreSQL, one cluster given in
/// `REQD_BENCH_SET`); the 50 clients take turns among them, and the one client talks to the first.
func queueBench() {
    do {
        var daemons: [DaemonUnderTest] = []
        defer { for daemon in daemons { daemon.stop() } }
        for _ in 0..<max(1, Int(option("--daemons") ?? "1") ?? 1) { daemons.append(try DaemonUnderTest(binary: reqdPath)) }
        let fields: @Sendable (Int, Int) -> String = { client, index in
            "\"op\":\"submit\",\"method\":\"POST\",\"url\":\"http://127.0.0.1:9/q/\(client)/\(index)\",\"body\":\"{}\","
                + "\"max_attempts\":1,\"dedupe_window_ms\":0"
        }
        for (clients, perClient) in [(1, quick ? 500 : 5_000), (50, quick ? 100 : 1_000)] {
            let rate = try registrationRate(
                sockets: daemons.map(\.socket), clients: clients, perClient: perClient, durable: true, timeLimit: 20, fields: fields)
            print("QUEUE_\(clients)=\(Int(rate))")
        }
    } catch {
        FileHandle.standardError.write(Data("reqd-bench: \(error)\n".utf8))
        exit(1)
    }
}
