import Dispatch
import Logging
import Synchronization

/// The daemon's log level and log rate, shared by every handler so that SIGHUP changes both at
/// run time.
///
/// The rate (`daemon.log_rate`) is a token bucket of that many lines a second that holds up to
/// ten seconds' worth, so a burst of 300 failing jobs is written whole. A line past it is held
/// back and counted by level; once a second, the next line written is preceded by one `notice`
/// summary of what was held back. At 200 lines a second that is at most 2,000 + 30 × 200 = 8,000
/// lines in any 30 s, under journald's own limit (10,000 per 30 s by default), which drops lines
/// without saying which. `error` and `critical` lines are never held back.
public final class LogLevelControl: Sendable {
    private struct State {
        var level: Logger.Level
        var rate: Int
        var tokens: Double
        var refilledAt: UInt64
        var held: [Logger.Level: Int] = [:]
        var heldSince: UInt64?
    }

    private let state: Mutex<State>
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

    /// Whether a line at `level` may be written now, and the summary line to write before it, if
    /// one is due.
    func admit(_ level: Logger.Level, now: UInt64 = DispatchTime.now().uptimeNanoseconds) -> (write: Bool, summary: String?) {
        state.withLock { state in
            guard state.rate > 0 else { return (true, nil) }
            let elapsed = Double(now &- state.refilledAt) / 1e9
            state.tokens = min(Double(state.rate * Self.burstSeconds), state.tokens + elapsed * Double(state.rate))
            state.refilledAt = now
            var summary: String?
            if let since = state.heldSince, now &- since >= 1_000_000_000 {
                summary = Self.summary(of: state.held, over: Double(now &- since) / 1e9, rate: state.rate)
                state.held = [:]
                state.heldSince = nil
            }
            if level >= .error || state.tokens >= 1 {
                state.tokens = max(0, state.tokens - 1)
                return (true, summary)
            }
            state.held[level, default: 0] += 1
            if state.heldSince == nil { state.heldSince = now }
            return (false, summary)
        }
    }

    private static func summary(of held: [Logger.Level: Int], over seconds: Double, rate: Int) -> String {
        let total = held.values.reduce(0, +)
        let levels = held.sorted { $0.key > $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        let span = (seconds * 10).rounded() / 10
        return "held back \(total) log lines in \(span) s over daemon.log_rate \(rate)/s: \(levels)"
    }
}
