import Foundation
import ReqdProtocol
import ReqdTestSupport
import Testing

@testable import ReqdDaemon

@Suite("Metrics against a real daemon: the endpoint, the operation, and promtool", .serialized)
struct MetricsServerTests {
    /// The value of one series in an exposition text, such as `reqd_jobs{kind="poll",state="active"}`.
    private static func value(_ series: String, in text: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1))
        }
        return nil
    }

    @Test("after a known workload the endpoint's counts are exact, the operation shows the same, and promtool accepts the text")
    func knownWorkload() throws {
        let fixture = try ServerFixture(
            configure: { $0.metricsListen = .loopback(host: "127.0.0.1", port: 0) },
            handler: { record in
                switch record.path {
                case "/busy", "/busy-watched": TestHTTPServer.Reply(status: 503, body: "{}")
                case "/missing": TestHTTPServer.Reply(status: 404, body: "{}")
                default: TestHTTPServer.Reply(body: "{\"ok\":true}")
                }
            })
        let address = try #require(fixture.daemon.metricsAddress)
        #expect(address.hasPrefix("127.0.0.1:") && !address.hasSuffix(":0"), "the kernel's port is reported: \(address)")

        // Three countdowns that expire, one that stays; two answered requests, one refused (404),
        // and one that retries once on 503 and is dead-lettered.
        var short: [String] = []
        for index in 0..<3 {
            let reply = try fixture.call(["op": "register-countdown", "key": "short\(index)", "duration_ms": 10])
            short.append(try #require(reply.job?["id"] as? String, "\(reply)"))
        }
        _ = try fixture.call(["op": "register-countdown", "key": "long", "duration_ms": 600_000])
        // Distinct paths: an identical submit within the dedupe window would return the first job.
        for path in ["/ok1", "/ok2", "/missing"] {
            let submitted = try fixture.submit("GET", path, ["max_attempts": 1])
            _ = try fixture.wait(try #require(submitted.job?["id"] as? String))
        }
        // Retried twice over: once followed (its retry is an event), once unwatched (its retry
        // is only counted); each is counted once.
        let busy = try fixture.submit("GET", "/busy", ["max_attempts": 2, "backoff_min_ms": 10, "backoff_max_ms": 20])
        let dead = try fixture.wait(try #require(busy.job?["id"] as? String))
        #expect(dead["state"] as? String == "dead")
        let watched = try LineClient(path: fixture.daemon.socketPath)
        let followed = try fixture.submit(
            "GET", "/busy-watched", ["max_attempts": 2, "backoff_min_ms": 10, "backoff_max_ms": 20, "follow": true], on: watched)
        #expect(followed.job != nil)
        #expect(watched.event("retrying") != nil)
        #expect(watched.event("dead") != nil)
        for id in short {
            #expect(try fixture.wait(id)["state"] as? String == "expired")
        }

        let scraped = try HTTPGet.fetch(address)
        #expect(scraped.status == 200)
        #expect(scraped.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
        let text = scraped.body
        let expected: [(String, Double)] = [
            (#"reqd_registrations_total{kind="countdown"}"#, 4),
            (#"reqd_registrations_total{kind="request"}"#, 5),
            (#"reqd_registrations_total{kind="poll"}"#, 0),
            (#"reqd_jobs_ended_total{kind="countdown",state="expired"}"#, 3),
            (#"reqd_jobs_ended_total{kind="request",state="succeeded"}"#, 2),
            (#"reqd_jobs_ended_total{kind="request",state="failed"}"#, 1),
            (#"reqd_jobs_ended_total{kind="request",state="dead"}"#, 2),
            ("reqd_dead_letters_total", 2),
            (#"reqd_retries_total{kind="request"}"#, 2),
            (#"reqd_retries_total{kind="group"}"#, 0),
            ("reqd_attempts_total", 7),
            (#"reqd_http_responses_total{class="2xx"}"#, 2),
            (#"reqd_http_responses_total{class="4xx"}"#, 1),
            (#"reqd_http_responses_total{class="5xx"}"#, 4),
            (#"reqd_http_responses_total{class="error"}"#, 0),
            ("reqd_http_request_duration_seconds_count", 7),
            (#"reqd_jobs{kind="countdown",state="active"}"#, 1),
            (#"reqd_jobs{kind="countdown",state="expired"}"#, 3),
            (#"reqd_jobs{kind="request",state="dead"}"#, 2),
            ("reqd_held_jobs", 0),
        ]
        for (series, count) in expected {
            #expect(Self.value(series, in: text) == count, "\(series)")
        }
        #expect((Self.value("reqd_commit_duration_seconds_count", in: text) ?? 0) >= 1, "durable registrations were committed")
        #expect((Self.value("reqd_timer_lateness_seconds_count", in: text) ?? 0) >= 1, "the timer fired for the expiries")
        #expect(Self.value("reqd_connections", in: text) == 2)
        #expect(Self.value(#"reqd_retries_total{kind="countdown"}"#, in: text) == nil, "only request jobs and groups retry")

        let checked = try Promtool.check(text)
        #expect(checked.status == 0, "promtool check metrics: \(checked.output)")

        // The operation carries the same counters, the gauges it set them from, the soonest
        // job, and the target left failing by the 503s.
        let reply = try fixture.call(["op": "metrics", "soonest": 5])
        let result = try #require(reply.result)
        let opText = try #require(result["text"] as? String)
        #expect(Self.value(#"reqd_registrations_total{kind="request"}"#, in: opText) == 5)
        #expect(Self.value("reqd_attempts_total", in: opText) == 7)
        #expect((result["jobs"] as? [String: [String: Int]])?["request"]?["dead"] == 2)
        let soonest = try #require(result["soonest"] as? [[String: Any]])
        #expect(soonest.count == 1)
        #expect((soonest.first?["job"] as? [String: Any])?["key"] as? String == "long")
        let targets = try #require(result["targets"] as? [[String: Any]])
        #expect(targets.count == 1)
        #expect(targets.first?["target"] as? String == "http://127.0.0.1:\(fixture.server.port)")
        #expect(targets.first?["state"] as? String == "failing")
        #expect(targets.first?["failures"] as? Int == 4)
        #expect(targets.first?["last_status"] as? Int == 503)

        #expect(try HTTPGet.fetch(address, path: "/other").status == 404)
        #expect(try HTTPGet.fetch(address, method: "POST").status == 405)
        let bad = try fixture.call(["op": "metrics", "soonest": 1_000])
        #expect(bad.errorCode == "bad_field")
    }

    @Test("the endpoint keeps at most 16 connections and answers each with one response, so idle clients cannot use up the daemon")
    func connectionCap() throws {
        let directory = TemporaryDirectory()
        let daemon = try startDaemon(in: directory) { $0.metricsListen = .loopback(host: "127.0.0.1", port: 0) }
        defer { daemon.stop() }
        let address = try #require(daemon.metricsAddress)
        let idle = try (0..<MetricsEndpoint.maxConnections).map { _ in try HTTPGet.open(address) }
        // Give the endpoint time to accept them all.
        usleep(500_000)
        #expect(throws: (any Error).self, "a 17th connection is closed at once") { try HTTPGet.fetch(address) }
        for descriptor in idle { close(descriptor) }
        var answered = false
        for _ in 0..<250 where !answered {
            answered = (try? HTTPGet.fetch(address))?.status == 200
            if !answered { usleep(20_000) }
        }
        #expect(answered, "scrapes work again once the idle connections are gone")
        let scraped = try HTTPGet.fetch(address)
        #expect(scraped.headers["connection"] == "close")
    }

    @Test("on a Unix socket the endpoint takes the control socket's mode, serves scrapes, and is removed on stop")
    func unixSocket() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/metrics.sock"
        let daemon = try startDaemon(in: directory) {
            $0.metricsListen = .unix(path)
            $0.socketMode = 0o640
        }
        #expect(daemon.metricsAddress == "unix:" + path)
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o640)
        let scraped = try HTTPGet.fetch("unix:" + path)
        #expect(scraped.status == 200)
        #expect(scraped.body.contains("# TYPE reqd_registrations_total counter"))
        daemon.stop()
        #expect(access(path, F_OK) != 0, "the socket file is gone after stop")
    }

    @Test("metrics.listen takes a Unix socket or a loopback address, and refuses any other")
    func listenSetting() throws {
        #expect(try MetricsListen(parsing: "") == .off)
        #expect(try MetricsListen(parsing: "/run/reqd/metrics.sock") == .unix("/run/reqd/metrics.sock"))
        #expect(try MetricsListen(parsing: "unix:/tmp/m.sock") == .unix("/tmp/m.sock"))
        #expect(try MetricsListen(parsing: "127.0.0.1:9464") == .loopback(host: "127.0.0.1", port: 9464))
        #expect(try MetricsListen(parsing: "127.8.9.10:9464") == .loopback(host: "127.8.9.10", port: 9464))
        #expect(try MetricsListen(parsing: "[::1]:9464") == .loopback(host: "::1", port: 9464))
        #expect(try MetricsListen(parsing: "localhost:9464") == .loopback(host: "127.0.0.1", port: 9464))
        for refused in [
            "0.0.0.0:9464", "10.1.2.3:9464", "[::]:9464", "[::2]:9464", "example.com:9464", "127.0.0.1", "127.0.0.1:70000", "metrics.sock",
            "127.+0.0.1:9464", "127.0.0.01:9464", "128.0.0.1:9464", "::ffff:127.0.0.1:9464",
        ] {
            #expect(throws: DaemonError.self, "\(refused)") { try MetricsListen(parsing: refused) }
        }
        var configuration = Configuration()
        #expect(throws: DaemonError.self) { try configuration.set("metrics.listen", .string("0.0.0.0:9464")) }
    }
}
