import Foundation
import Synchronization

/// Fair turns (issue 17): ten clients' round trips, alone and beside one connection that pipelines
/// registrations flat out.
///
///   fairness [--reqd PATH] [--seconds S]
///
/// Each of ten connections sends `status` round trips at 100/s (paced, one at a time) for S
/// seconds (default 10), first with nothing else on the daemon, then while one more connection
/// pipelines ephemeral countdown registrations with 2,000 in flight. Prints the ten clients'
/// pooled round-trip p50/p99/max for both phases, the ratio of the p99s, and the pipeliner's rate.
/// Every loop is bounded in count and time.
func fairnessBench() {
    do {
        let seconds = Double(option("--seconds") ?? "") ?? 10
        let daemon = try DaemonUnderTest(binary: reqdPath, extraArguments: ["--set", "socket.max_pending_bytes=1073741824"])
        defer { daemon.stop() }
        let alone = try pacedRoundTrips(socket: daemon.socket, clients: 10, seconds: seconds)

        let stop = StopFlag()
        let lines = countdownLines(connections: 1, perConnection: 600_000, ephemeral: true, prefix: "burst")
        let driver = RoundTripDriver(socket: daemon.socket, depth: 2_000, timeLimit: seconds + 10, stop: stop)
        let rate = Mutex<Double>(0)
        let done = DispatchSemaphore(value: 0)
        Thread {
            rate.withLock { $0 = (try? driver.run(lines: lines)) ?? -1 }
            done.signal()
        }.start()
        usleep(500_000)
        let beside = try pacedRoundTrips(socket: daemon.socket, clients: 10, seconds: seconds)
        stop.set()
        done.wait()
        print(String(format: "ALONE_P50_MS=%.3f\nALONE_P99_MS=%.3f\nALONE_MAX_MS=%.3f", percentile(alone, 0.5), percentile(alone, 0.99), alone.last ?? .nan))
        print(String(format: "BURST_P50_MS=%.3f\nBURST_P99_MS=%.3f\nBURST_MAX_MS=%.3f", percentile(beside, 0.5), percentile(beside, 0.99), beside.last ?? .nan))
        print(String(format: "P99_RATIO=%.2f\nPIPELINER_RATE=%.0f", percentile(beside, 0.99) / percentile(alone, 0.99), rate.withLock { $0 }))
    } catch {
        FileHandle.standardError.write(Data("reqd-bench: \(error)\n".utf8))
        exit(1)
    }
}

/// `status` round trips at 100/s on each of `clients` connections for `seconds`; the pooled
/// round-trip times in ms, sorted.
private func pacedRoundTrips(socket: String, clients: Int, seconds: Double) throws -> [Double] {
    let times = Mutex<[Double]>([])
    let failed = Mutex(false)
    let group = DispatchGroup()
    let request = line("{\"id\":1,\"op\":\"status\"}")
    for _ in 0..<clients {
        let connection = try BenchSocket(path: socket)
        group.enter()
        Thread {
            defer { group.leave() }
            var mine: [Double] = []
            let start = now()
            var next = start
            for _ in 0..<Int(seconds * 100) {
                let sent = now()
                guard (try? connection.roundTrip(request)) == true else {
                    failed.withLock { $0 = true }
                    return
                }
                let answered = now()
                mine.append((answered - sent) * 1_000)
                next += 0.01
                if next > answered { usleep(useconds_t((next - answered) * 1e6)) }
                if answered - start > seconds + 5 { break }
            }
            times.withLock { $0 += mine }
        }.start()
    }
    group.wait()
    if failed.withLock({ $0 }) { throw BenchError("a round trip failed") }
    return times.withLock { $0 }.sorted()
}
