extension Job {
    /// A request or poll job's attempt log; nil for the kinds that keep none.
    var attemptLog: AttemptLog? {
        switch work {
        case .request(let delivery): delivery.log
        case .poll(let poll): poll.log
        case .countdown, .group, .schedule: nil
        }
    }
}
