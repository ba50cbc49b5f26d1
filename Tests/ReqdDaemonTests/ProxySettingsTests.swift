import Foundation
import ReqdTestSupport
import Testing
@testable import ReqdDaemon

@Suite("Proxies from the environment")
struct ProxySettingsTests {
    @Test("http_proxy, https_proxy and no_proxy are read as curl reads them; lower case wins")
    func readsEnvironment() throws {
        let proxies = try ProxySettings(environment: [
            "HTTP_PROXY": "http://upper:1", "http_proxy": "http://lower.example:3128/", "HTTPS_PROXY": "secure.example",
            "NO_PROXY": "localhost, .internal.example,*.corp.example 10.0.0.0/8,[::1]:8080,api.example:8443",
        ])
        #expect(proxies.http == ProxySettings.Proxy(host: "lower.example", port: 3128))
        #expect(proxies.https == ProxySettings.Proxy(host: "secure.example", port: 1080), "the port defaults to 1080, as in curl")
        #expect(proxies.direct == ["localhost", "internal.example", "corp.example", "10.0.0.0/8", "[::1]:8080", "api.example:8443"])
        #expect(try ProxySettings(environment: ["PATH": "/bin"]) == ProxySettings())
        #expect(try ProxySettings(environment: ["http_proxy": " "]).isActive == false)
        #expect(try ProxySettings(environment: ["http_proxy": "", "HTTP_PROXY": "p:1"]).isActive == false, "set but empty: no proxy, as in curl")
    }

    @Test("each URL goes through its scheme's proxy unless no_proxy covers its host")
    func choosesPerRequest() throws {
        let proxies = try ProxySettings(environment: [
            "http_proxy": "http://p:1", "https_proxy": "http://s:2",
            "no_proxy": "localhost,.internal.example,10.0.0.0/8,[::1]:8080,api.example:8443",
        ])
        let (plain, secure) = (proxies.http, proxies.https)
        #expect(proxies.proxy(for: "http://example.org/a") == plain)
        #expect(proxies.proxy(for: "https://example.org/a") == secure)
        #expect(proxies.proxy(for: "HTTPS://EXAMPLE.ORG/") == secure)
        #expect(proxies.proxy(for: "http://localhost:9000/") == nil)
        #expect(proxies.proxy(for: "http://internal.example/") == nil)
        #expect(proxies.proxy(for: "https://db.internal.example/") == nil)
        #expect(proxies.proxy(for: "https://db.internal.example./") == nil, "a trailing dot names the same host")
        #expect(proxies.proxy(for: "http://notinternal.example/") == plain, "a suffix counts only at a dot")
        #expect(proxies.proxy(for: "http://10.1.2.3/") == nil)
        #expect(proxies.proxy(for: "http://11.1.2.3/") == plain)
        #expect(proxies.proxy(for: "http://[::1]:8080/") == nil)
        #expect(proxies.proxy(for: "http://[::1]:8081/") == plain)
        #expect(proxies.proxy(for: "https://api.example:8443/") == nil)
        #expect(proxies.proxy(for: "https://api.example/") == secure, "the entry names port 8443; this is 443")
        #expect(try ProxySettings(environment: ["http_proxy": "p:1", "no_proxy": "*"]).proxy(for: "http://x/") == nil)
        #expect(try ProxySettings(environment: ["https_proxy": "p:1"]).proxy(for: "http://x/") == nil, "no proxy for http")
    }

    @Test("credentials in a proxy URL are kept for the proxy and never shown")
    func credentials() throws {
        let proxies = try ProxySettings(environment: ["http_proxy": "http://me:s%40cret@127.0.0.1:3128"])
        let proxy = try #require(proxies.http)
        #expect(proxy.username == "me" && proxy.password == "s@cret")
        #expect(proxy.description == "127.0.0.1:3128")
        var settings = HTTPSettings()
        settings.proxies = proxies
        for shown in ["\(proxies)", "\(settings)", String(reflecting: settings)] {
            #expect(shown.contains("127.0.0.1:3128") && !shown.contains("cret"), "\(shown)")
        }
    }

    @Test("a proxy reqd cannot use is an error naming its variable, without its credentials", arguments: [
        ("socks5://me:hunter2@p:1080", "only http:// proxies"),
        ("http://me:hunter2@p:port", "the port is not a number"),
        ("http://me:hunter2@:3128", "no host"),
        ("http://p:70000", "1 to 65535"),
        ("http://[::1:3128", "']'"),
    ])
    func refusesUnusable(url: String, problem: String) {
        do {
            _ = try ProxySettings(environment: ["HTTPS_PROXY": url])
            Issue.record("accepted \(url)")
        } catch {
            #expect(error.code == .invalidSetting)
            #expect(error.message.hasPrefix("environment HTTPS_PROXY: "), "\(error.message)")
            #expect(error.message.contains(problem), "\(error.message)")
            #expect(!error.message.contains("hunter2"))
        }
    }

    @Test("the loader reads the proxies, and refuses them beside a target policy, which could not check the proxy's connections")
    func loader() throws {
        let loaded = try ConfigurationLoader(file: nil, environment: ["http_proxy": "127.0.0.1:3128"]).load()
        #expect(loaded.http.proxies.http?.port == 3128)
        #expect {
            _ = try ConfigurationLoader(
                file: nil, environment: ["http_proxy": "127.0.0.1:3128"], overrides: [("http.deny", "10.0.0.0/8")]
            ).load()
        } throws: { error in
            (error as? DaemonError)?.key == "http.deny" && (error as? DaemonError)?.message.contains("proxy") == true
        }
    }

    @Test("requests go through the proxy with its credentials, in a CONNECT tunnel; no_proxy hosts go direct")
    func throughTheProxy() throws {
        let proxy = try TestConnectProxy(requiring: "Basic " + Data("me:s@cret".utf8).base64EncodedString())
        defer { proxy.shutdown() }
        let environment = [
            "http_proxy": "http://me:s%40cret@127.0.0.1:\(proxy.port)", "https_proxy": "http://me:s%40cret@127.0.0.1:\(proxy.port)",
            "no_proxy": "localhost",
        ]
        let fixture = try ServerFixture(configure: { $0.http.proxies = try! ProxySettings(environment: environment) }) { _ in
            TestHTTPServer.Reply(status: 200, body: "{}")
        }
        let via = try #require(try fixture.submit("GET", "/via").job?["id"] as? String)
        #expect(try fixture.wait(via)["state"] as? String == "succeeded")
        #expect(fixture.server.records(path: "/via").count == 1)
        #expect(proxy.tunnels.map(\.target) == ["127.0.0.1:\(fixture.server.port)"])

        let direct = try fixture.call(["op": "submit", "method": "GET", "url": "http://localhost:\(fixture.server.port)/direct"])
        let directID = try #require(direct.job?["id"] as? String)
        #expect(try fixture.wait(directID)["state"] as? String == "succeeded")
        #expect(fixture.server.records(path: "/direct").count == 1)
        #expect(proxy.tunnels.count == 1, "no_proxy sent it direct")

        // An https URL goes through https_proxy, here the same proxy: the tunnel is asked for even
        // though the test server speaks no TLS, so the attempt then fails.
        let secure = try #require(
            try fixture.call([
                "op": "submit", "method": "GET", "url": "https://127.0.0.1:\(fixture.server.port)/tls", "max_attempts": 1,
            ]).job?["id"] as? String)
        _ = try fixture.wait(secure)
        #expect(proxy.tunnels.map(\.target).last == "127.0.0.1:\(fixture.server.port)")
        #expect(proxy.tunnels.count == 2)
    }

    @Test("a proxy that refuses the credentials fails the attempt with a clear error")
    func refusedByTheProxy() throws {
        let proxy = try TestConnectProxy(requiring: "Basic c29tZW9uZTplbHNl")
        defer { proxy.shutdown() }
        let environment = ["http_proxy": "http://127.0.0.1:\(proxy.port)"]
        let fixture = try ServerFixture(configure: { $0.http.proxies = try! ProxySettings(environment: environment) }) { _ in
            TestHTTPServer.Reply(status: 200, body: "{}")
        }
        let id = try #require(try fixture.submit("GET", "/refused", ["max_attempts": 1]).job?["id"] as? String)
        let ended = try fixture.wait(id)
        #expect(ended["state"] as? String == "dead")
        #expect((ended["error"] as? String)?.contains("proxy") == true, "\(ended)")
        #expect(fixture.server.records(path: "/refused").isEmpty)
    }
}
