import ReqdProtocol

extension Group {
    /// The body of a group's `on_complete` report once it ended as `state`.
    static func report(of job: Job, state: JobState) -> GroupReport? {
        guard let group = job.group else { return nil }
        let view = GroupInfo(group)
        return GroupReport(
            job: job.id.rawValue, state: state, total: view.total, done: view.done, failures: view.failures,
            members: view.members, errors: view.errors)
    }
}
