import Synchronization

/// A remote job behind a status URL, for poll tests: each request moves its progress forward by
/// a random step until it reaches 100 and reports `"done"`; each answer comes after a random
/// latency between 0 and twice the poll interval. Seeded, so a failing run can be repeated.
public final class RemoteJobSimulation: Sendable {
    private struct State {
        var random: UInt64
        var progress: [String: Int] = [:]
    }

    private let state: Mutex<State>
    private let intervalNanos: Int64
    private let maxStep: Int

    /// Creates a simulation; `intervalNanos` is the poll interval the latency is scaled to.
    public init(seed: UInt64, intervalNanos: Int64, maxStep: Int = 20) {
        state = Mutex(State(random: seed))
        self.intervalNanos = intervalNanos
        self.maxStep = maxStep
    }

    /// The answer for one request to `path`: the job's new state, after a random latency.
    public func reply(path: String) -> TestHTTPServer.Reply {
        state.withLock { state in
            let step = 1 + Int(Self.next(&state.random) % UInt64(maxStep))
            let progress = min(100, state.progress[path, default: 0] + step)
            state.progress[path] = progress
            let latency = Int64(Self.next(&state.random) % UInt64(2 * intervalNanos + 1))
            let body = #"{"state":"\#(progress >= 100 ? "done" : "running")","progress":\#(progress)}"#
            return TestHTTPServer.Reply(body: body, delayNanos: latency)
        }
    }

    private static func next(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
