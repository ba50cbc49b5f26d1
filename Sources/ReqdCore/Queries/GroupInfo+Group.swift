import ReqdProtocol

extension GroupInfo {
    /// The wire view of a group: every member in order, and every member that did not succeed;
    /// `brief` leaves both lists out, for views that show only the counts.
    init(_ group: Group, brief: Bool = false) {
        let members = brief ? [] : group.members.enumerated().map { index, member in
            MemberInfo(
                index: index, method: member.delivery.request.method, url: member.delivery.request.url, state: member.state,
                attempts: Int(member.delivery.attempts), status: member.result?.status ?? member.delivery.lastStatus,
                body: member.result?.body, truncated: member.result?.truncated, error: member.error)
        }
        let errors = members.compactMap { member in
            member.state.isEnded && member.state != .succeeded
                ? MemberError(index: member.index, state: member.state, error: member.error ?? member.state.rawValue) : nil
        }
        self.init(
            concurrency: group.concurrency, timeoutMs: group.timeout.map { $0 / 1_000_000 }, total: group.members.count,
            done: group.done, failures: group.failures, members: members, errors: errors, onCompleteJob: group.spawned?.rawValue)
    }
}
