/// A countdown's `on_expire` request as `status JOB_ID` shows it, and the job its expiry started.
public struct OnExpireInfo: Codable, Sendable, Hashable {
    public var method: String
    public var url: String
    /// The names of the request headers; their values are never shown.
    public var headerNames: [String]
    /// The request job started at expiry; nil until the countdown has expired.
    public var job: String?

    public init(method: String, url: String, headerNames: [String], job: String?) {
        self.method = method
        self.url = url
        self.headerNames = headerNames
        self.job = job
    }

    enum CodingKeys: String, CodingKey {
        case method, url
        case headerNames = "header_names"
        case job
    }
}
