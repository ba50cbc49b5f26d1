extension Job {
    /// Gives a request job's request `Idempotency-Key: <job id>` unless it names one: the same key
    /// on every attempt, and after restarts (the id is stored), so a target can drop repeats.
    mutating func addIdempotencyKey() {
        guard case .request(var delivery) = work else { return }
        delivery.request.addIdempotencyKey(header.id)
        work = .request(delivery)
    }
}
