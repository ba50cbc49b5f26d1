import Foundation

/// The durable queue benchmark: `submit`s per second, each acknowledged only after its commit,
/// from 1 client and from 50 concurrent clients, each waiting for every reply.
///
/// The requests go to a closed port on loopback with `max_attempts: 1`, so each job ends after
/// one refused connection and delivery costs little next to the commits being measured.
func queueBench() {
    do {
        let daemon = try DaemonUnderTest(binary: reqdPath)
        defer { daemon.stop() }
        let fields: @Sendable (Int, Int) -> String = { client, index in
            "\"op\":\"submit\",\"method\":\"POST\",\"url\":\"http://127.0.0.1:9/q/\(client)/\(index)\",\"body\":\"{}\","
                + "\"max_attempts\":1,\"dedupe_window_ms\":0"
        }
        for (clients, perClient) in [(1, quick ? 500 : 5_000), (50, quick ? 100 : 1_000)] {
            let rate = try registrationRate(
                socket: daemon.socket, clients: clients, perClient: perClient, durable: true, timeLimit: 20, fields: fields)
            print("QUEUE_\(clients)=\(Int(rate))")
        }
    } catch {
        FileHandle.standardError.write(Data("reqd-bench: \(error)\n".utf8))
        exit(1)
    }
}
