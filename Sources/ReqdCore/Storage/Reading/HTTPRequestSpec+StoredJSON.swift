import ReqdProtocol

extension HTTPRequestSpec: StoredJSONReadable {
    package init(stored object: WireObject) throws(WireDecodingFailure) {
        self.init(
            method: try object.string("method"), url: try object.string("url"),
            headers: try object.objects("headers") { header throws(WireDecodingFailure) in
                HTTPHeader(name: try header.string("name"), value: try header.string("value"))
            },
            body: try object.optionalBytes("body"))
    }
}
