import Dispatch
import Logging
import Synchronization

/// The daemon's log level and log rate, shared by every handler so that SIGHUP changes both at
/// run time.
///
/// The rate (`daemon.log_rate`) is a token bucket of that many lines a second that holds up to
/// ten seconds' worth, so a burst of 300 failing jobs is written whole. A line past it is held
/// back and counted by level and kind (the job's kind, or `daemon`); a second after the first
/// held line, one `notice` summary of what was held back is written: before the next line that
/// passes, or by a timer when none comes (`setSummaryWriter`). At 200 lines a second that is at most
/// 2,000 + 30 × 200 = 8,000 lines in any 30 s, plus 30 summaries, under journald's own limit
/// (10,000 per 30 s by default), which drops lines without saying which. `error` and `critical`
/// lines are never held back.
public final class LogLevelControl: Sendable {
    private struct State {
        var level: Logger.Level
        var rate: Int
        var tokens: Double
        var refilledAt: UInt64
        var held: [Logger.Level: [String: Int]] = [:]
        var heldSince: UInt64?
    }

    private let state: Mutex<State>
    private let writer = Mutex<(@Sendable (String) -> Void)?>(nil)
    /// Seconds of the rate the bucket holds, for bursts.
    static let burstSeconds = 10

    /// Creates the control with a starting level and a rate in lines a second (0: no limit).
    public init(_ level: Logger.Level, rate: Int = 0) {
        state = Mutex(State(level: level, rate: rate, tokens: Double(rate * Self.burstSeconds), refilledAt: DispatchTime.now().uptimeNanoseconds))
    }

    /// The current level.
    public var current: Logger.Level {
        get { state.withLock { $0.level } }
        set { state.withLock { $0.level = newValue } }
    }

    /// Lines a second at most; 0 for no limit.
    public var rate: Int {
        get { state.withLock { $0.rate } }
        set {
            state.withLock {
                $0.rate = newValue
                $0.tokens = min($0.tokens, Double(newValue * Self.burstSeconds))
            }
        }
    }

    /// Sets what writes a summary that falls due while no line comes to carry it; until then such
    /// a summary waits for the next line.
    public func setSummaryWriter(_ write: @escaping @Sendable (String) -> Void) {
        writer.withLock { $0 = write }
    }

    /// Whether a line at `level` about `kind` may be written now, and the summary line to write
    /// before it, if one is due.
    func admit(
        _ level: Logger.Level, kind: String = "daemon", now: UInt64 = DispatchTime.now().uptimeNanoseconds
    ) -> (write: Bool, summary: String?) {
        let (admitted, summary, firstHeld) = state.withLock { state -> (Bool, String?, Bool) in
            guard state.rate > 0 else { return (true, nil, false) }
            let elapsed = Double(now &- state.refilledAt) / 1e9
            state.tokens = min(Double(state.rate * Self.burstSeconds), state.tokens + elapsed * Double(state.rate))
            state.refilledAt = now
            let summary = Self.takeSummary(&state, now: now)
            if level >= .error || state.tokens >= 1 {
                state.tokens = max(0, state.tokens - 1)
                return (true, summary, false)
            }
            state.held[level, default: [:]][kind, default: 0] += 1
            guard state.heldSince == nil else { return (false, summary, false) }
            state.heldSince = now
            return (false, summary, true)
        }
        if firstHeld { scheduleSummary() }
        return (admitted, summary)
    }

    /// The summary that is due at `now`, if any, taken: a second or more after the first line
    /// held back.
    func dueSummary(now: UInt64 = DispatchTime.now().uptimeNanoseconds) -> String? {
        state.withLock { Self.takeSummary(&$0, now: now) }
    }

    private static func takeSummary(_ state: inout State, now: UInt64) -> String? {
        guard let since = state.heldSince, now &- since >= 1_000_000_000 else { return nil }
        defer {
            state.held = [:]
            state.heldSince = nil
        }
        return summary(of: state.held, over: Double(now &- since) / 1e9, rate: state.rate)
    }

    /// Writes the summary a second after the first held line, unless a line that passes has
    /// carried it by then.
    private func scheduleSummary() {
        guard writer.withLock({ $0 != nil }) else { return }
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + .milliseconds(1_010)) { [self] in
            guard let summary = dueSummary(), let write = writer.withLock({ $0 }) else { return }
            write(summary)
        }
    }

    private static func summary(of held: [Logger.Level: [String: Int]], over seconds: Double, rate: Int) -> String {
        let total = held.values.reduce(0) { $0 + $1.values.reduce(0, +) }
        let levels = held.sorted { $0.key > $1.key }.map { level, kinds in
            let byKind = kinds.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { "\($0.value) \($0.key)" }
            return "\(kinds.values.reduce(0, +)) \(level) (\(byKind.joined(separator: ", ")))"
        }
        let span = (seconds * 10).rounded() / 10
        return "held back \(total) log lines in \(span) s over daemon.log_rate \(rate)/s: \(levels.joined(separator: ", "))"
    }
}
