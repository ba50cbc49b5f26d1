import ReqdProtocol

extension HTTPRequestSpec: StoredJSONReadable {
    package init(stored object: WireObject) throws(WireDecodingFailure) {
        self.init(
            method: try object.string("method"), url: try object.string("url"),
            headers: try object.objects("headers", as: HTTPHeader.self),
            body: try object.optionalBytes("body"))
    }
}
