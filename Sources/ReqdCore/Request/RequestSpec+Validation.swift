import ReqdProtocol

extension RequestSpec {
    /// The request and retry policy a client described; `field` prefixes field names in errors
    /// (`on_expire.`, `members[3].`).
    func delivery(field: String, firstAttempt: Instant, limits: SchedulerConfiguration) throws(SchedulerError) -> Delivery {
        let request = try limits.validatedRequest(
            method: method, url: url, headers: headers, body: body, bodyBase64: bodyBase64, field: field)
        let maxAttempts = maxAttempts ?? limits.defaultMaxAttempts
        guard (1...1000).contains(maxAttempts) else {
            throw SchedulerError(.badField, "'\(field)max_attempts' must be between 1 and 1000, got \(maxAttempts)")
        }
        let backoffMin = try backoffMinMs.map { value throws(SchedulerError) in
            try limits.milliseconds("\(field)backoff_min_ms", value, atLeast: 1)
        } ?? limits.defaultBackoffMinNanos
        let backoffMax = try backoffMaxMs.map { value throws(SchedulerError) in
            try limits.milliseconds("\(field)backoff_max_ms", value, atLeast: 1)
        } ?? max(backoffMin, limits.defaultBackoffMaxNanos)
        guard backoffMin <= backoffMax else {
            throw SchedulerError(.badDuration, "'\(field)backoff_min_ms' must not be above '\(field)backoff_max_ms'")
        }
        var delivery = Delivery(
            request: request, maxAttempts: maxAttempts, backoffMin: backoffMin, backoffMax: backoffMax, parent: nil,
            firstAttempt: firstAttempt)
        if let retryOn { delivery.retryOn = try RetryStatuses(parsing: retryOn) }
        return delivery
    }

    /// A report request (`on_success`, `on_failure`, `on_complete`) as a delivery: POST unless
    /// it says otherwise, with a JSON content type unless it names one.
    func reportDelivery(field: String, firstAttempt: Instant, limits: SchedulerConfiguration) throws(SchedulerError) -> Delivery {
        var report = self
        report.method = report.method ?? "POST"
        if !(report.headers ?? []).contains(where: { $0.lowercased().hasPrefix("content-type:") }) {
            report.headers = (report.headers ?? []) + ["Content-Type: application/json"]
        }
        return try report.delivery(field: field, firstAttempt: firstAttempt, limits: limits)
    }
}
