import ReqdProtocol

extension SubmitSpec {
    /// The request job this `submit` asks for, its first attempt due at `now`, and its dedupe
    /// window (0 when dedupe is off), or why it cannot be.
    func validated(at now: ClockReading, limits: SchedulerConfiguration) throws(SchedulerError) -> (delivery: Delivery, window: Int64) {
        try limits.validateRegistration(key: key, scope: scope, ephemeral: ephemeral, bindConnection: bindConnection)
        var delivery = try request.delivery(field: "", firstAttempt: now.instant, limits: limits)
        delivery.onSuccess = try onSuccess.map { report throws(SchedulerError) in
            Box(try report.reportDelivery(field: "on_success.", firstAttempt: now.instant, limits: limits))
        }
        delivery.onFailure = try onFailure.map { report throws(SchedulerError) in
            Box(try report.reportDelivery(field: "on_failure.", firstAttempt: now.instant, limits: limits))
        }
        return (delivery, try dedupeWindow(limits: limits))
    }

    /// The dedupe window this `submit` asks for, or the configured one; 0 turns dedupe off.
    private func dedupeWindow(limits: SchedulerConfiguration) throws(SchedulerError) -> Int64 {
        for name in dedupeHeaders ?? [] where !HTTPHeader.isToken(name) {
            throw SchedulerError(.badField, "'dedupe_headers' holds '\(name.prefix(64))', which is not a header name")
        }
        guard let dedupeWindowMs else { return limits.dedupeWindowNanos }
        guard dedupeWindowMs != 0 else { return 0 }
        return try limits.milliseconds("dedupe_window_ms", dedupeWindowMs, atLeast: 1)
    }
}
