import Foundation
import Synchronization

/// `count` ephemeral submits to `url`, whose target (host and port) the daemon limits to `rate`
/// with `burst`; a watcher notes when each `succeeded` event arrives. Prints the achieved rate
/// (from the first to the last answer) and the most answers in any one-second window, beside
/// `rate + burst`, which no window may exceed.
func targetRateAccuracy(url: String, count: Int, rate: String, burst: Int) throws {
    guard let perSecond = rateValue(rate) else { throw BenchError("--rate takes N/s, N/m or N/h") }
    let target = targetName(url)
    let daemon = try DaemonUnderTest(
        binary: reqdPath,
        extraArguments: ["--set", "targets.\"\(target)\".rate=\(rate)", "--set", "targets.\"\(target)\".burst=\(burst)"])
    defer { daemon.stop() }
    let watcher = try BenchSocket(path: daemon.socket)
    try watcher.write(line("{\"id\":1,\"op\":\"watch\",\"scope\":\"rate\"}"))
    _ = try watcher.readLine()
    let arrivals = Mutex<[Double]>([])
    let reader = Thread {
        while let reply = try? watcher.readLine() {
            guard let event = try? JSONSerialization.jsonObject(with: Data(reply)) as? [String: Any],
                let type = event["event"] as? String, ["succeeded", "failed", "dead"].contains(type)
            else { continue }
            if arrivals.withLock({ $0.append(type == "succeeded" ? wallNow() : -1); return $0.count }) == count { return }
        }
    }
    reader.start()
    try pipeline(socket: daemon.socket, count: count, connections: 1) { index, _, _ in
        "\"op\":\"submit\",\"url\":\"\(url)?n=\(index)\",\"max_attempts\":1,\"scope\":\"rate\",\"ephemeral\":true"
    }
    let deadline = wallNow() + Double(count) / perSecond + 30
    while arrivals.withLock({ $0.count }) < count, wallNow() < deadline { usleep(50_000) }
    let times = arrivals.withLock { $0 }.sorted()
    guard times.count == count, times.first ?? -1 >= 0 else { throw BenchError("\(times.count) of \(count) ended, \(times.filter { $0 < 0 }.count) not succeeded") }
    let achieved = Double(count - 1) / (times[count - 1] - times[0])
    var most = 0
    var end = 0
    for start in times.indices {
        while end < times.count, times[end] < times[start] + 1 { end += 1 }
        most = max(most, end - start)
    }
    print(String(format: "ACHIEVED_RATE=%.1f\nTARGET_RATE=%.1f\nERROR_PERCENT=%.2f", achieved, perSecond, abs(achieved - perSecond) / perSecond * 100))
    print("MAX_IN_ONE_SECOND=\(most)\nRATE_PLUS_BURST=\(Int(perSecond) + burst)")
}

/// Requests a second of `20/s`, `600/m` or `3600/h`.
private func rateValue(_ text: String) -> Double? {
    let parts = text.split(separator: "/")
    guard parts.count == 2, let count = Double(parts[0]) else { return nil }
    switch parts[1] {
    case "s": return count
    case "m": return count / 60
    case "h": return count / 3_600
    default: return nil
    }
}

/// `host:port` of an http URL, as reqd names targets.
private func targetName(_ url: String) -> String {
    let rest = url.components(separatedBy: "://").last ?? url
    let authority = rest.split(separator: "/", maxSplits: 1).first.map(String.init) ?? rest
    return authority.contains(":") ? authority : authority + ":80"
}
