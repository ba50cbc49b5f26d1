import ReqdProtocol

/// One frame of `reqd-client top`, as lines no wider than the terminal: pure, so that the layout
/// is the same whether a terminal, a test or `--once` asks for it.
struct TopScreen {
    /// Per-second rates between two samples of the metrics.
    struct Rates: Equatable {
        var registrations: Double
        var attempts: Double
        /// By status class, with `error` for no answer.
        var answers: [String: Double]

        /// The rates from `earlier` to `later`, `seconds` apart.
        init(from earlier: MetricsText, to later: MetricsText, seconds: Double) {
            func rate(_ name: String, _ labels: [String: String] = [:]) -> Double {
                max(0, later.total(name, matching: labels) - earlier.total(name, matching: labels)) / max(seconds, 0.001)
            }
            registrations = rate("reqd_registrations_total")
            attempts = rate("reqd_attempts_total")
            answers = Dictionary(uniqueKeysWithValues: Self.classes.map { ($0, rate("reqd_http_responses_total", ["class": $0])) })
        }

        static let classes = ["2xx", "3xx", "4xx", "5xx", "error"]
    }

    var summary: DaemonSummary?
    var metrics: MetricsResult?
    var rates: Rates?
    /// Why the last refresh failed, shown in place of the figures it could not get.
    var problem: String?
    /// The wall-clock time of the frame.
    var now: WallTime
    var refreshSeconds: Double

    /// The frame's lines, cut to `width` columns and `height` rows.
    func lines(width: Int, height: Int) -> [String] {
        var lines = header()
        if let problem { lines += ["", "! " + problem] }
        lines += [""] + jobs() + [""] + activity() + [""] + soonest() + [""] + targets()
        var shown = Array(lines.prefix(max(1, height - 1)))
        shown.append("q quits · refreshes every \(Self.number(refreshSeconds))s")
        return shown.map { String($0.prefix(max(1, width))) }
    }

    private func header() -> [String] {
        let time = String(now.rfc3339.dropFirst(11).prefix(8))
        guard let summary else { return ["reqd top · \(time)"] }
        var line = "reqd \(summary.version)"
        if let pid = summary.pid { line += " · pid \(pid)" }
        line += " · up \(DurationText.format(nanoseconds: summary.uptimeMs / 1000 * 1_000_000_000))"
        line += " · \(summary.connections) connection\(summary.connections == 1 ? "" : "s")"
        line += " · network \(summary.network.state.rawValue) · \(time)"
        return [line]
    }

    private func jobs() -> [String] {
        guard let summary else { return ["JOBS  -"] }
        let states = JobState.allCases.map(\.rawValue)
        var rows = [["JOBS"] + states.map { $0.uppercased() }]
        for kind in JobKind.allCases.map(\.rawValue) {
            rows.append([kind] + states.map { "\(summary.jobs[kind]?[$0] ?? 0)" })
        }
        return TextTable.lines(rows, rightAligned: true)
    }

    private func activity() -> [String] {
        let perSecond = { (value: Double?) in value.map { Self.number($0) } ?? "-" }
        var answers = "ANSWERS/s"
        for label in Rates.classes { answers += "  \(label) \(perSecond(rates?.answers[label]))" }
        var lines = [
            "RATES/s  registrations \(perSecond(rates?.registrations))  attempts \(perSecond(rates?.attempts))",
            answers,
        ]
        if let summary, let metrics {
            // The caller's own, as the jobs table and the targets are.
            let held = summary.network.heldJobs
            let targets = metrics.targets.filter { $0.state == .unreachable }.count
            lines.append(
                "HELD     \(held) request job\(held == 1 ? "" : "s") waiting for \(targets) unreachable target\(targets == 1 ? "" : "s")")
        }
        return lines
    }

    private func soonest() -> [String] {
        guard let metrics else { return ["DUE SOONEST  -"] }
        var rows = [["DUE IN", "JOB", "KIND", "KEY", "WHAT"]]
        for due in metrics.soonest {
            let job = due.job
            rows.append([
                due.dueInMs <= 0 ? "now" : EventRenderer.clock(due.dueInMs), job.id, job.kind.rawValue,
                job.key ?? job.scope.map { "scope " + $0 } ?? "-", Self.what(job),
            ])
        }
        if rows.count == 1 { return ["DUE SOONEST  nothing waits"] }
        return TextTable.lines(rows)
    }

    private func targets() -> [String] {
        guard let metrics else { return ["TARGETS  -"] }
        if metrics.targets.isEmpty { return ["TARGETS  none failing"] }
        var rows = [["TARGET", "STATE", "SINCE", "FAILURES", "LAST"]]
        for target in metrics.targets {
            rows.append([
                target.target, target.state.rawValue, String(target.since.rfc3339.dropFirst(11).prefix(8)),
                target.failures.map(String.init) ?? target.heldJobs.map { "\($0) held" } ?? "-",
                target.lastStatus.map { "status \($0)" } ?? target.error ?? "-",
            ])
        }
        return TextTable.lines(rows)
    }

    /// What the daemon does next for a job, in a few words.
    static func what(_ job: JobInfo) -> String {
        if let request = job.request {
            return "\(request.method) \(request.url) (attempt \(request.attempts + 1) of \(request.maxAttempts))"
        }
        if let poll = job.poll { return "poll \(EventRenderer.pollURL(poll)) (\(poll.polls) so far)" }
        if let group = job.group { return "group, \(group.done) of \(group.total) members done" }
        if let remaining = job.remainingMs { return "expires in \(EventRenderer.clock(remaining))" }
        return "-"
    }

    /// A rate or a number of seconds with at most one decimal.
    static func number(_ value: Double) -> String {
        let tenths = (value * 10).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? "\(Int(tenths / 10))" : "\(tenths / 10)"
    }
}
