import ReqdProtocol

/// What a request job (or a countdown's `on_expire`) sends, and its retry policy.
public struct DeliverySettings: Sendable, Hashable, Codable {
    public var request: HTTPRequestSpec
    public var maxAttempts: Int
    public var backoffMinNanos: Int64
    public var backoffMaxNanos: Int64
    /// The job whose end started this one.
    public var parent: String?
    /// The statuses retried, when not the standard ones.
    public var retryOn: [String]? = nil
    /// Written by earlier versions and no longer read: a job's `Retry-After` cap is the daemon's
    /// `request.max_retry_after` as configured now, reloads included.
    public var maxRetryAfterNanos: Int64? = nil
    /// The `on_success` and `on_failure` reports, by `success` and `failure`.
    public var reports: [String: DeliverySettings]? = nil

    enum CodingKeys: String, CodingKey {
        case request
        case maxAttempts = "max_attempts"
        case backoffMinNanos = "backoff_min_ns"
        case backoffMaxNanos = "backoff_max_ns"
        case parent
        case retryOn = "retry_on"
        case maxRetryAfterNanos = "max_retry_after_ns"
        case reports
    }
}

extension DeliverySettings {
    /// The stored form of a delivery's settings.
    init(_ delivery: Delivery) {
        self.init(
            request: delivery.request, maxAttempts: delivery.maxAttempts, backoffMinNanos: delivery.backoffMin,
            backoffMaxNanos: delivery.backoffMax, parent: delivery.parent?.rawValue,
            retryOn: delivery.retryOn == .standard ? nil : delivery.retryOn.entries, maxRetryAfterNanos: nil)
        var reports: [String: DeliverySettings] = [:]
        reports["success"] = delivery.onSuccess.map { DeliverySettings($0.value) }
        reports["failure"] = delivery.onFailure.map { DeliverySettings($0.value) }
        self.reports = reports.isEmpty ? nil : reports
    }

    /// A delivery with these settings whose first attempt starts at `start`.
    func delivery(firstAttempt start: Instant) -> Delivery {
        var delivery = Delivery(
            request: request, maxAttempts: maxAttempts, backoffMin: backoffMinNanos, backoffMax: backoffMaxNanos,
            parent: parent.map(JobID.init), firstAttempt: start)
        if let retryOn, let statuses = try? RetryStatuses(parsing: retryOn) { delivery.retryOn = statuses }
        delivery.onSuccess = reports?["success"].map { Box($0.delivery(firstAttempt: start)) }
        delivery.onFailure = reports?["failure"].map { Box($0.delivery(firstAttempt: start)) }
        return delivery
    }
}
