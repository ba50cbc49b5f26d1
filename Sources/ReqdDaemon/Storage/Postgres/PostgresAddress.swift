import Foundation

/// Where a PostgreSQL store is, read from a libpq-style URL such as
/// `postgres://reqd@db.example:5432/reqd?sslmode=verify-full` or
/// `postgresql:///reqd?host=/run/postgresql`.
///
/// `description` leaves the password out: it is what logs and errors show.
public struct PostgresAddress: Sendable, Equatable, CustomStringConvertible {
    /// How the connection reaches the server.
    public enum Endpoint: Sendable, Equatable {
        /// TCP to a host name or address.
        case tcp(host: String, port: Int)
        /// The server's Unix socket, `DIRECTORY/.s.PGSQL.PORT`.
        case unix(path: String)
    }

    /// libpq's `sslmode`, for TCP; a Unix socket never uses TLS.
    public enum TLSMode: String, Sendable, Equatable, CaseIterable {
        case disable
        /// TLS when the server offers it, unverified (libpq's default).
        case prefer
        /// TLS always, unverified.
        case require
        /// TLS always, the server's certificate checked against the system's roots.
        case verifyCA = "verify-ca"
        /// As `verify-ca`, and the certificate must name the host.
        case verifyFull = "verify-full"
    }

    /// How the connection reaches the server.
    public var endpoint: Endpoint
    /// The role to connect as; the daemon's user name when the URL gives none.
    public var user: String?
    /// The password the URL itself holds; `storage.postgres_password_file` or `$PGPASSWORD` when nil.
    public var password: String?
    /// The database; the user's name when the URL gives none, as libpq does.
    public var database: String?
    /// The URL's `sslmode`; `prefer` when it gives none, as libpq's default.
    public var tlsMode: TLSMode
    /// The URL's `connect_timeout` in seconds; 10 when it gives none.
    public var connectTimeoutSeconds: Int?
    /// The URL's `application_name`, which `pg_stat_activity` shows; `reqd` when it gives none.
    public var applicationName: String?

    /// Reads a `postgres://` or `postgresql://` URL; `host` in the query or a host that starts with
    /// `/` names a socket directory. Throws the reason in words.
    public init(parsing text: String) throws(DaemonError) {
        func refuse(_ problem: String) -> DaemonError { .invalidSetting("storage.postgres_url", problem) }
        guard let components = URLComponents(string: text), let scheme = components.scheme,
            ["postgres", "postgresql"].contains(scheme.lowercased())
        else { throw refuse("must be a URL such as postgres://user@host:5432/database; got '\(Self.redacted(text))'") }
        var parameters: [String: String] = [:]
        for item in components.queryItems ?? [] { parameters[item.name] = item.value ?? "" }
        let known: Set = ["host", "port", "user", "password", "dbname", "sslmode", "application_name", "connect_timeout"]
        if let unknown = parameters.keys.sorted().first(where: { !known.contains($0) }) {
            throw refuse("has the parameter '\(unknown)', which reqd does not read; it reads \(known.sorted().joined(separator: ", "))")
        }
        let portText = parameters["port"] ?? components.port.map(String.init)
        let port = portText.map { Int($0) } ?? 5432
        guard let port, (1...65_535).contains(port) else { throw refuse("has the port '\(portText ?? "")', not 1 to 65535") }
        let host = parameters["host"] ?? components.percentEncodedHost.flatMap { $0.removingPercentEncoding }.flatMap { $0.isEmpty ? nil : $0 }
        if let host, !host.hasPrefix("/") {
            endpoint = .tcp(host: host, port: port)
        } else {
            endpoint = .unix(path: (host ?? "/var/run/postgresql") + "/.s.PGSQL.\(port)")
        }
        user = parameters["user"] ?? components.user.flatMap { $0.isEmpty ? nil : $0 }
        password = parameters["password"] ?? components.password
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = parameters["dbname"] ?? (path.isEmpty ? nil : path)
        let mode = parameters["sslmode"] ?? "prefer"
        guard let tls = TLSMode(rawValue: mode) else {
            throw refuse("has sslmode '\(mode)'; reqd reads \(TLSMode.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if case .unix = endpoint, tls != .disable, tls != .prefer {
            throw refuse("asks for sslmode '\(mode)' on a Unix socket, which never uses TLS")
        }
        tlsMode = tls
        applicationName = parameters["application_name"]
        if let text = parameters["connect_timeout"] {
            guard let seconds = Int(text), (1...3_600).contains(seconds) else {
                throw refuse("has connect_timeout '\(text)', not 1 to 3600 seconds")
            }
            connectTimeoutSeconds = seconds
        }
    }

    public var description: String {
        let credentials = user.map { $0 + (password == nil ? "" : ":***") + "@" } ?? ""
        switch endpoint {
        case .tcp(let host, let port): return "postgres://\(credentials)\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database ?? "")"
        case .unix(let path): return "postgres://\(credentials)/\(database ?? "")?socket=\(path)"
        }
    }

    /// What an error may show of a URL that could not be read: its scheme alone, since a password
    /// may sit anywhere in it.
    static func redacted(_ text: String) -> String {
        guard let scheme = text.range(of: "://") else { return "(not a URL)" }
        return String(text[..<scheme.upperBound]) + "…"
    }
}
