import Testing
@testable import ReqdDaemon

@Suite("storage.postgres_url: libpq-style URLs, shown without their password")
struct PostgresAddressTests {
    @Test("TCP with user, password, port, database and sslmode; shown with the password hidden")
    func tcp() throws {
        let address = try PostgresAddress(parsing: "postgresql://reqd:s3cret@db.example:6543/jobs?sslmode=verify-full")
        #expect(address.endpoint == .tcp(host: "db.example", port: 6543))
        #expect(address.user == "reqd" && address.password == "s3cret" && address.database == "jobs")
        #expect(address.tlsMode == .verifyFull)
        #expect(address.description == "postgres://reqd:***@db.example:6543/jobs")
        #expect(!"\(address)".contains("s3cret"))
    }

    @Test("a socket directory from host=, or a host that is a path; the default socket when no host is given")
    func unixSockets() throws {
        #expect(try PostgresAddress(parsing: "postgres:///reqd?host=/run/postgresql").endpoint == .unix(path: "/run/postgresql/.s.PGSQL.5432"))
        #expect(try PostgresAddress(parsing: "postgres://%2Ftmp%2Fpg:5433/reqd").endpoint == .unix(path: "/tmp/pg/.s.PGSQL.5433"))
        let defaulted = try PostgresAddress(parsing: "postgres:///reqd")
        #expect(defaulted.endpoint == .unix(path: "/var/run/postgresql/.s.PGSQL.5432"))
        #expect(defaulted.user == nil && defaulted.database == "reqd" && defaulted.tlsMode == .prefer)
        #expect(try PostgresAddress(parsing: "postgres:///?host=/tmp&user=u&dbname=d&port=7").description == "postgres://u@/d?socket=/tmp/.s.PGSQL.7")
    }

    @Test("refused with the key named and the password hidden: another scheme, an unknown parameter, a bad port or sslmode, TLS on a socket")
    func refusals() {
        for (text, words) in [
            ("mysql://u:s3cret@h/d", "must be a URL such as"),
            ("postgres://u:s3cret@h/d?pool=3", "the parameter 'pool'"),
            ("postgres://u:s3cret@h/d?port=0", "not 1 to 65535"),
            ("postgres://u:s3cret@h/d?sslmode=sometimes", "sslmode 'sometimes'"),
            ("postgres:///d?host=/run/postgresql&sslmode=require", "never uses TLS"),
        ] {
            do {
                _ = try PostgresAddress(parsing: text)
                Issue.record("\(text) was read")
            } catch {
                #expect(error.code == .invalidSetting)
                #expect(error.message.contains("storage.postgres_url"), "\(error.message)")
                #expect(error.message.contains(words), "\(error.message)")
                #expect(!error.message.contains("s3cret"), "\(error.message)")
            }
        }
    }
}
