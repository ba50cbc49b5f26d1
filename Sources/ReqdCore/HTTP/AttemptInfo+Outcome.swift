import ReqdProtocol

extension AttemptInfo {
    /// The log entry of attempt `number`, sent at `started`, that ended with `outcome` at `now`.
    init(number: UInt32, started: Instant, _ outcome: HTTPOutcome, address: String?, at now: ClockReading) {
        var status: Int?
        var error: String?
        var headers: [String]?
        var truncated: Bool?
        switch outcome {
        case .response(let answer):
            status = answer.status
            if let lines = answer.headers?.map({ "\($0.name): \($0.value)" }) {
                let kept = AttemptInfo.keptHeaders(lines)
                headers = kept.lines
                if kept.truncated { truncated = true }
            }
        case .failure(let why), .rejected(let why), .unreachable(let why), .denied(let why):
            error = why
        }
        let micros = max(0, now.instant.nanoseconds(since: started)) / 1000
        self.init(
            number: Int(number), startedAt: now.wall(at: started), durationMs: Double(micros) / 1000, address: address,
            status: status, error: error, headers: headers, headersTruncated: truncated)
    }
}
