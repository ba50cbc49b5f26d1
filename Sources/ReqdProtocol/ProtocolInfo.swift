/// Version facts that the daemon and the client exchange in `hello`.
public enum ProtocolInfo {
    /// The wire protocol version this build speaks.
    public static let version = 1
    /// The reqd release this build belongs to.
    public static let softwareVersion = "0.1.0"
    /// The default limit on one request line, in bytes.
    public static let defaultMaxLineBytes = 1 << 20
}
