import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import ReqdCore
import ReqdDaemon
import Synchronization

/// The HTTP client's own ceiling, without the daemon: `--connections` request loops against one
/// URL, each starting its next request the moment the previous one ends.
///
/// Three rows: a bare AsyncHTTPClient configured as reqd configures it
/// (`HTTPExecutor.clientConfiguration`, one event-loop thread, a pool of 64 connections, reqd's
/// response delegate and `User-Agent`), reqd's `HTTPExecutor` on top of it, and the executor with
/// a target policy (`http.deny = ["10.0.0.0/8"]`), so every connection goes through the
/// `TargetGate`. They bound what poll jobs can reach through the one shared AsyncHTTPClient the
/// daemon is built on. `--only bare` runs the first row alone (bench/run's comparison).
func clientCeilingBench() {
    do {
        guard let url = option("--url") else { throw BenchError("give --url http://127.0.0.1:PORT/PATH") }
        let connections = Int(option("--connections") ?? "") ?? 64
        let seconds = Double(option("--seconds") ?? "") ?? 10
        let threads = Int(option("--threads") ?? "") ?? 1
        print("| client | loops | requests/s | CPU per request | CPU |")
        print("|---|---|---|---|---|")
        let bare = try bareClientRate(url: url, connections: connections, threads: threads, seconds: seconds)
        print(row("bare AsyncHTTPClient", connections, bare))
        guard option("--only") != "bare" else {
            print("CLIENT_RATE=\(Int(bare.rate))")
            return
        }
        let executor = try executorRate(url: url, connections: connections, threads: threads, seconds: seconds)
        print(row("reqd HTTPExecutor", connections, executor))
        var policy = TargetPolicy()
        policy.deny = ["10.0.0.0/8"]
        let gated = try executorRate(url: url, connections: connections, threads: threads, seconds: seconds, policy: policy)
        print(row("reqd HTTPExecutor, through the target gate", connections, gated))
        print("CLIENT_RATE=\(Int(bare.rate))")
        print("EXECUTOR_RATE=\(Int(executor.rate))")
    } catch {
        FileHandle.standardError.write(Data("reqd-bench: \(error)\n".utf8))
        exit(1)
    }
}

private struct LoopResult {
    var rate: Double
    var cpuPerRequest: Double
    var cores: Double
}

private func row(_ name: String, _ loops: Int, _ result: LoopResult) -> String {
    String(format: "| %@ | %d | %.0f | %.1f µs | %.2f cores |", name, loops, result.rate, result.cpuPerRequest * 1e6, result.cores)
}

/// CPU time (user + system) this process has used, in seconds.
private func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// Starts the loops, lets them warm up for 2 s, then measures for `seconds`: `completed()` reads
/// how many requests have ended well so far, and `stop()` ends the loops.
private func measure(seconds: Double, completed: () -> Int, stop: () -> Void, start: () -> Void) -> LoopResult {
    start()
    usleep(2_000_000)
    let (c0, t0, n0) = (processCPUSeconds(), now(), completed())
    usleep(UInt32(seconds * 1e6))
    let (c1, t1, n1) = (processCPUSeconds(), now(), completed())
    stop()
    usleep(300_000)
    let requests = Double(max(1, n1 - n0))
    return LoopResult(rate: requests / (t1 - t0), cpuPerRequest: (c1 - c0) / requests, cores: (c1 - c0) / (t1 - t0))
}

private func bareClientRate(url: String, connections: Int, threads: Int, seconds: Double) throws -> LoopResult {
    var settings = HTTPSettings()
    settings.threads = threads
    settings.maxConnectionsPerHost = connections
    let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
    let client = HTTPClient(eventLoopGroupProvider: .shared(group), configuration: HTTPExecutor.clientConfiguration(settings))
    defer {
        try? client.syncShutdown()
        try? group.syncShutdownGracefully()
    }
    let request = try HTTPClient.Request(url: url, headers: ["User-Agent": HTTPExecutor.userAgent])
    let count = Atomic(0)
    let stop = Atomic(false)
    let maxBodySize = settings.maxResponseBytes
    @Sendable func loop() {
        let delegate = HopRecordingDelegate(request: request, maxBodySize: maxBodySize)
        client.execute(request: request, delegate: delegate).futureResult.whenComplete { result in
            if case .success = result { count.add(1, ordering: .relaxed) }
            if !stop.load(ordering: .relaxed) { loop() }
        }
    }
    return measure(
        seconds: seconds, completed: { count.load(ordering: .relaxed) }, stop: { stop.store(true, ordering: .relaxed) }
    ) {
        for _ in 0..<connections { loop() }
    }
}

private func executorRate(
    url: String, connections: Int, threads: Int, seconds: Double, policy: TargetPolicy = TargetPolicy()
) throws -> LoopResult {
    var settings = HTTPSettings()
    settings.threads = threads
    settings.maxConnectionsPerHost = connections
    let count = Atomic(0)
    let stop = Atomic(false)
    let holder = Mutex<HTTPExecutor?>(nil)
    let request = HTTPRequestSpec(method: "GET", url: url)
    let executor = try HTTPExecutor(settings: settings, policy: policy) { job, attempt, outcome, _ in
        if case .response = outcome { count.add(1, ordering: .relaxed) }
        guard !stop.load(ordering: .relaxed), let executor = holder.withLock({ $0 }) else { return }
        executor.execute(HTTPSend(job: job, attempt: attempt &+ 1, request: request, parseJSON: true))
    }
    holder.withLock { $0 = executor }
    defer {
        holder.withLock { $0 = nil }
        executor.shutdown()
    }
    return measure(
        seconds: seconds, completed: { count.load(ordering: .relaxed) }, stop: { stop.store(true, ordering: .relaxed) }
    ) {
        for index in 0..<connections {
            executor.execute(HTTPSend(job: JobID("pl_bench\(index)"), attempt: 0, request: request, parseJSON: true))
        }
    }
}
