import ReqdProtocol

/// How a job ended, as its machine decided.
struct JobEnd: Sendable, Equatable {
    var state: JobState
    var error: String?
    /// A request to send as a job of its own once the end is recorded (`on_expire`,
    /// `on_success`, `on_failure`, `on_complete`), its body already written.
    var report: Delivery?

    init(_ state: JobState, error: String? = nil, report: Delivery? = nil) {
        self.state = state
        self.error = error
        self.report = report
    }
}
