extension JobSelector {
    /// Reads a selector: a job, a key or a scope.
    init(wire object: WireObject) throws(WireDecodingFailure) {
        self.init(
            job: try object.optionalString("job"), key: try object.optionalString("key"), scope: try object.optionalString("scope"),
            abort: try object.optionalBool("abort"))
    }
}
