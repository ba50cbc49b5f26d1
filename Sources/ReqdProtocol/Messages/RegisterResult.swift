/// The result of a registration.
public struct RegisterResult: Codable, Sendable, Hashable {
    public var job: JobInfo
    /// The id of the running job with the same key that this registration replaced.
    public var replaced: String?
    /// True when an identical request inside the dedupe window already made `job`; nothing new was created.
    public var deduplicated: Bool?

    public init(job: JobInfo, replaced: String?, deduplicated: Bool? = nil) {
        self.job = job
        self.replaced = replaced
        self.deduplicated = deduplicated
    }
}
