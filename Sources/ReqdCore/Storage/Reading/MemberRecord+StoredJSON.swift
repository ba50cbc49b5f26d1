import ReqdProtocol

extension MemberRecord: StoredJSONReadable {
    package init(stored object: WireObject) throws(WireDecodingFailure) {
        self.init(
            state: try object.case("state", of: MemberState.self), attempts: try object.int("attempts"),
            lastStatus: try object.optionalInt("last_status"), result: try object.optionalObject("result", as: HTTPResult.self),
            error: try object.optionalString("error"))
    }
}
