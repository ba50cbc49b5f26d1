import ReqdProtocol

extension HTTPResult: StoredJSONReadable {
    package init(stored object: WireObject) throws(WireDecodingFailure) {
        let status = try object.int("status")
        let body = try object.string("body")
        let truncated = try object.bool("truncated")
        self.init(status: status, headers: try object.optionalStrings("headers"), body: body, truncated: truncated)
    }
}
