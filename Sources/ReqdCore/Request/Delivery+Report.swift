import ReqdProtocol

extension Delivery {
    /// The body of an `on_success` or `on_failure` report of a request job that ended as `state`.
    static func report(of job: Job, state: JobState) -> OutcomeReport? {
        guard let delivery = job.delivery else { return nil }
        return OutcomeReport(
            job: job.id.rawValue, state: state, attempts: Int(delivery.attempts), url: delivery.request.url,
            status: job.result?.status, body: job.result?.body, error: job.error)
    }
}
