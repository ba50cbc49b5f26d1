/// Version facts that the daemon and the client exchange in `hello`.
public enum ProtocolInfo {
    /// The wire protocol version this build speaks.
    public static let version = 1
    /// The reqd release this build belongs to.
    public static let softwareVersion = "0.1.0"
    /// The default limit on one request line, in bytes: 2 MiB, so that a body of the default
    /// `http.max_request_bytes` (1 MiB) fits in its line as base64 (4 bytes for every 3).
    public static let defaultMaxLineBytes = 2 << 20
}
