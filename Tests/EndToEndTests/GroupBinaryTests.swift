import Foundation
import ReqdTestSupport
import Testing

@Suite("reqd-client group, end to end", .serialized)
struct GroupBinaryTests {
    @Test("--request with its own --data, --file NDJSON, --wait prints a member table; exit 0 all succeeded, 2 failed")
    func waitTable() throws {
        let server = try TestHTTPServer { record in
            record.path.hasPrefix("/fail") ? TestHTTPServer.Reply(status: 503, body: "busy") : TestHTTPServer.Reply(status: 201, body: "ok")
        }
        defer { server.shutdown() }
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let daemon = try DaemonProcess(directory: directory)
        defer { daemon.stop() }

        let succeeded = try Binaries.client(
            [
                "group", "--concurrency", "2", "--request", "GET \(server.url("/a"))", "--request", "POST \(server.url("/b"))",
                "--data", #"{"n":2}"#, "--header", "Content-Type: application/json", "--request", "PUT \(server.url("/c"))",
                "--data", "third", "--wait",
            ], socket: daemon.socket)
        #expect(succeeded.status == 0, "\(succeeded.stderr)")
        #expect(succeeded.stdout.contains("POST \(server.url("/b"))"), "\(succeeded.stdout)")
        #expect(succeeded.stdout.contains("succeeded"))
        #expect(server.records(path: "/a").first?.body == "")
        #expect(server.records(path: "/b").first?.body == #"{"n":2}"#)
        #expect(server.records(path: "/b").first?.header("content-type") == "application/json")
        #expect(server.records(path: "/c").first?.body == "third")
        #expect(server.records(path: "/c").first?.method == "PUT")

        let file = directory + "/members.ndjson"
        let lines = [
            #"{"method":"GET","url":"\#(server.url("/d"))"}"#,
            #"{"method":"GET","url":"\#(server.url("/fail/1"))","max_attempts":2,"backoff_min_ms":10}"#,
            #"{"method":"GET","url":"\#(server.url("/fail/2"))"}"#,
        ]
        try lines.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let failed = try Binaries.client(["group", "--file", file, "--wait"], socket: daemon.socket)
        #expect(failed.status == 2)
        #expect(failed.stdout.contains("2 attempts failed; the last: the server answered 503"), "\(failed.stdout)")
        #expect(failed.stdout.contains("2 of 3 members did not succeed"))
        #expect(server.records(path: "/fail/1").count == 2)
        #expect(server.records(path: "/fail/2").count == 1)

        let arrayFile = directory + "/members.json"
        try #"[{"method":"GET","url":"\#(server.url("/f/0"))"},{"method":"DELETE","url":"\#(server.url("/f/1"))"}]"#
            .write(toFile: arrayFile, atomically: true, encoding: .utf8)
        let fromArray = try Binaries.client(["group", "--file", arrayFile, "--wait"], socket: daemon.socket)
        #expect(fromArray.status == 0, "\(fromArray.stdout)")
        #expect(server.records(path: "/f/1").first?.method == "DELETE")

        // A key a request does not take, in either form of file: refused before anything is sent.
        try #"[{"url":"\#(server.url("/typo/0"))"},{"url":"\#(server.url("/typo/1"))","max_attemps":3}]"#
            .write(toFile: arrayFile, atomically: true, encoding: .utf8)
        let typoInArray = try Binaries.client(["group", "--file", arrayFile, "--wait"], socket: daemon.socket)
        #expect(typoInArray.status == 64, "\(typoInArray.stderr)")
        #expect(typoInArray.stderr.contains("'Index 1' takes no field 'max_attemps'"), "\(typoInArray.stderr)")
        try [#"{"url":"\#(server.url("/typo/2"))"}"#, #"{"url":"\#(server.url("/typo/3"))","bdy":"x"}"#].joined(separator: "\n")
            .write(toFile: file, atomically: true, encoding: .utf8)
        let typoInLines = try Binaries.client(["group", "--file", file, "--wait"], socket: daemon.socket)
        #expect(typoInLines.status == 64, "\(typoInLines.stderr)")
        #expect(typoInLines.stderr.contains("line 2: a request object takes no field 'bdy'"), "\(typoInLines.stderr)")
        #expect(server.records.filter { $0.path.hasPrefix("/typo/") }.isEmpty)

        let json = try Binaries.client(["--json", "group", "--request", "GET \(server.url("/e"))", "--wait"], socket: daemon.socket)
        // One JSON line for the registration, one for the ended group.
        let last = try #require(json.stdout.split(separator: "\n").last)
        let ended = try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any]
        let group = (ended?["job"] as? [String: Any])?["group"] as? [String: Any]
        #expect((group?["members"] as? [[String: Any]])?.first?["status"] as? Int == 201)

        // --follow off a terminal: one line per member as it ends, then the completion.
        let followed = try Binaries.client(
            ["group", "--request", "GET \(server.url("/g/0"))", "--request", "GET \(server.url("/fail/g"))", "--follow"],
            socket: daemon.socket)
        #expect(followed.status == 2)
        let events = followed.stdout.split(separator: "\n")
        #expect(events.filter { $0.contains(" member ") }.count == 2, "\(followed.stdout)")
        #expect(events.contains { $0.contains("2 of 2 done, 1 failed") }, "\(followed.stdout)")
        #expect(events.last?.contains("completed: failed, 2 of 2 done") == true, "\(followed.stdout)")

        let usage = try Binaries.client(["group", "--data", "x", "--request", "GET \(server.url("/x"))"], socket: daemon.socket)
        #expect(usage.status == 64)
        #expect(usage.stderr.contains("after the --request"), "\(usage.stderr)")
    }
}
