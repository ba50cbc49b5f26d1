import Foundation
import Logging
import NIOCore
import NIOEmbedded
import ReqdProtocol
import Testing

@testable import ReqdDaemon

@Suite("Encoding replies and events onto the wire")
struct MessageEncoderTests {
    private static func lines(from channel: EmbeddedChannel) throws -> [[String: Any]] {
        var text = ""
        while var buffer = try channel.readOutbound(as: ByteBuffer.self) {
            text += buffer.readString(length: buffer.readableBytes) ?? ""
        }
        return text.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }

    @Test("a number JSON cannot hold (a NaN) goes out as null, and the reply and those beside it go out whole")
    func nonFiniteNumber() throws {
        var logger = Logger(label: "reqd-test")
        logger.logLevel = .critical
        let channel = EmbeddedChannel(handler: MessageEncoder(logger: logger, maxPendingEventBytes: 8 << 20))
        let at = WallTime(nanosecondsSinceEpoch: 0)
        let broken = JobInfo(
            id: "cd_1", kind: .countdown, state: .expired, owner: 1000, key: "k", scope: nil, durable: false, createdAt: at,
            lateByMs: .nan)
        let fine = HelloResult(protocolVersion: 1, server: "reqd", version: "0", uid: 0)
        try channel.writeOutbound([
            OutboundMessage.response(Response(id: .number(4), outcome: .success(.hello(fine)))),
            .response(Response(id: .number(5), outcome: .success(.job(JobResult(job: broken))))),
            .response(Response(id: .number(6), outcome: .success(.hello(fine)))),
        ])
        let lines = try Self.lines(from: channel)
        #expect(lines.map { $0["id"] as? Int } == [4, 5, 6])
        #expect(lines.allSatisfy { $0["ok"] as? Bool == true })
        let job = (lines[1]["result"] as? [String: Any])?["job"] as? [String: Any]
        #expect(job?["id"] as? String == "cd_1")
        #expect(job?["late_by_ms"] is NSNull)
    }
}
