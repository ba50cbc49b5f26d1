import ReqdProtocol

extension GroupCounters: StoredJSONReadable {
    package init(stored object: WireObject) throws(WireDecodingFailure) {
        self.init(members: try object.objects("member_states", as: MemberRecord.self), spawned: try object.optionalString("spawned"))
    }
}
