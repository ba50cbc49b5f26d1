import Foundation

/// Every job a `list` with `filter` selects (JSON members, such as `"state":"expired"`), page after
/// page of 1,000 by `next`; from a daemon that answers in one reply (before pages), one reply of
/// up to 100,000. So the same bench runs against both in an A/B.
func listAll(_ connection: BenchSocket, _ filter: String) throws -> [[String: Any]] {
    func page(_ request: String) throws -> [String: Any] {
        try connection.write(line(request))
        let reply = try connection.readLine()
        guard let object = try JSONSerialization.jsonObject(with: Data(reply)) as? [String: Any],
            let result = object["result"] as? [String: Any]
        else { throw BenchError("list failed: \(String(decoding: reply.prefix(200), as: UTF8.self))") }
        return result
    }
    var jobs: [[String: Any]] = []
    var after: String?
    var pages = 0
    while pages < 10_000 {
        pages += 1
        let cursor = after.map { ",\"after\":\"\($0)\"" } ?? ""
        let result = try page("{\"id\":\(pages),\"op\":\"list\",\(filter),\"limit\":1000\(cursor)}")
        jobs += result["jobs"] as? [[String: Any]] ?? []
        if let next = result["next"] as? String {
            after = next
            continue
        }
        if pages == 1, result["truncated"] as? Bool == true {
            return try page("{\"id\":0,\"op\":\"list\",\(filter),\"limit\":100000}")["jobs"] as? [[String: Any]] ?? []
        }
        break
    }
    return jobs
}
