import Foundation

/// The group benchmark: one group of `--members` GETs of one URL with cap `--concurrency`, timed
/// from sending the registration to the `wait` reply, `--runs` times; prints each wall time and
/// the median.
func groupBench() {
    do {
        guard let url = option("--url") else { throw BenchError("give --url http://127.0.0.1:PORT/PATH") }
        let members = Int(option("--members") ?? "") ?? 1_000
        let concurrency = Int(option("--concurrency") ?? "") ?? 64
        let runs = Int(option("--runs") ?? "") ?? 5
        let durable = arguments.contains("--durable")
        let daemon = try DaemonUnderTest(binary: reqdPath, extraArguments: ["--set", "http.max_connections_per_host=\(concurrency)"])
        defer { daemon.stop() }
        let connection = try BenchSocket(path: daemon.socket)
        let list = (0..<members).map { _ in "{\"method\":\"GET\",\"url\":\"\(url)\"}" }.joined(separator: ",")
        var times: [Double] = []
        // One warm-up run opens the pool's connections, as wrk's and ab's own first requests do.
        for run in 0...runs {
            let start = now()
            try connection.write(
                line("{\"id\":\(run * 2),\"op\":\"register-group\",\"members\":[\(list)],\"concurrency\":\(concurrency)\(durable ? "" : ",\"ephemeral\":true")}"))
            let reply = try connection.readLine()
            guard let object = try JSONSerialization.jsonObject(with: Data(reply)) as? [String: Any],
                let job = ((object["result"] as? [String: Any])?["job"] as? [String: Any])?["id"] as? String
            else { throw BenchError("register-group refused: \(String(decoding: reply.prefix(300), as: UTF8.self))") }
            try connection.write(line("{\"id\":\(run * 2 + 1),\"op\":\"wait\",\"job\":\"\(job)\"}"))
            let ended = try connection.readLine()
            let elapsed = now() - start
            guard String(decoding: ended, as: UTF8.self).contains("\"state\":\"succeeded\"") else {
                throw BenchError("the group did not succeed: \(String(decoding: ended.prefix(300), as: UTF8.self))")
            }
            if run > 0 { times.append(elapsed) }
        }
        times.sort()
        print("reqd group runs, \(durable ? "durable" : "ephemeral") (ms): " + times.map { String(format: "%.1f", $0 * 1000) }.joined(separator: " "))
        print(String(format: "GROUP_MEDIAN_MS=%.1f", times[times.count / 2] * 1000))
        print(String(format: "GROUP_MIN_MS=%.1f", times.first! * 1000))
        print(String(format: "GROUP_MAX_MS=%.1f", times.last! * 1000))
    } catch {
        FileHandle.standardError.write(Data("reqd-bench: \(error)\n".utf8))
        exit(1)
    }
}
