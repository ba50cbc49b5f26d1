import ReqdProtocol

extension HTTPHeader: StoredJSONReadable {
    package init(stored object: WireObject) throws(WireDecodingFailure) {
        self.init(name: try object.string("name"), value: try object.string("value"))
    }
}
