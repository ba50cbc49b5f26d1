import ReqdProtocol
import Testing
@testable import ReqdCore

@Suite("Target policy: which addresses requests may go to")
struct TargetPolicyTests {
    private static func policy(allow: [String] = [], deny: [String]) throws -> TargetPolicy {
        try TargetPolicy.check(allow: allow, deny: deny)
        var policy = TargetPolicy()
        policy.allow = allow
        policy.deny = deny
        return policy
    }

    private static func address(_ text: String) throws -> IPAddress {
        try #require(IPAddress(text[...]), "\(text) did not parse")
    }

    @Test("addresses parse in every usual form, host names and malformed text do not")
    func parsing() throws {
        #expect(try Self.address("169.254.169.254").description == "169.254.169.254")
        #expect(try Self.address("::ffff:169.254.169.254") == Self.address("169.254.169.254"))
        #expect(try Self.address("::ffff:a9fe:a9fe") == Self.address("169.254.169.254"))
        #expect(try Self.address("fe80::1%eth0") == Self.address("fe80:0:0:0:0:0:0:1"))
        #expect(try Self.address("::1").bytes == [UInt8](repeating: 0, count: 15) + [1])
        #expect(try Self.address("::").bytes == [UInt8](repeating: 0, count: 16))
        #expect(try Self.address("2001:db8::").description == "2001:db8:0:0:0:0:0:0")
        for bad in ["localhost", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1::2::3", "1.2.3.4::", "1.2.3.4::1", "12345::", ":1::2", "1:2:3:4:5:6:7:8:9", ""] {
            #expect(IPAddress(bad[...]) == nil, "\(bad)")
        }
    }

    @Test("an address has one canonical spelling (RFC 5952): the longest zero run as ::, the first of equal runs, IPv4 as a dotted quad")
    func canonical() throws {
        let cases = [
            ("::1", "::1"), ("0:0:0:0:0:0:0:1", "::1"), ("::", "::"), ("2001:DB8:0:0:1:0:0:1", "2001:db8::1:0:0:1"),
            ("2001:db8:0:0:1:0:0:0", "2001:db8:0:0:1::"), ("2001:0db8:0001:0:1:1:1:1", "2001:db8:1:0:1:1:1:1"),
            ("1:0:1:0:1:0:1:0", "1:0:1:0:1:0:1:0"), ("fe80::1%eth0", "fe80::1"), ("::ffff:7f00:1", "127.0.0.1"),
            ("::ffff:127.0.0.1", "127.0.0.1"), ("10.0.0.1", "10.0.0.1"), ("::1.2.3.4", "::102:304"),
        ]
        for (text, canonical) in cases {
            #expect(try Self.address(text).canonical == canonical, "\(text)")
            #expect(try Self.address(canonical) == Self.address(text), "\(canonical) parses back to \(text)")
        }
    }

    @Test("a deny range refuses the addresses in it, IPv4 written the IPv6 way included")
    func denyRanges() throws {
        let policy = try Self.policy(deny: ["169.254.0.0/16", "fe80::/10", "10.0.0.0/8"])
        #expect(policy.denial(of: try Self.address("169.254.169.254"))?.range.description == "169.254.0.0/16")
        #expect(policy.denial(of: try Self.address("::ffff:169.254.169.254")) != nil)
        #expect(policy.denial(of: try Self.address("fe80::1")) != nil)
        #expect(policy.denial(of: try Self.address("febf::1")) != nil)
        #expect(policy.denial(of: try Self.address("fec0::1")) == nil)
        #expect(policy.denial(of: try Self.address("10.255.0.1")) != nil)
        #expect(policy.denial(of: try Self.address("11.0.0.1")) == nil)
        #expect(policy.denial(of: try Self.address("169.255.0.1")) == nil)
        #expect(TargetPolicy().denial(host: "metadata", addresses: [try Self.address("169.254.169.254")]) == nil)
        // IPv6 forms that carry an IPv4 address are checked as that address too.
        for carrier in ["64:ff9b::a9fe:a9fe", "64:ff9b:1::a9fe:a9fe", "::ffff:0:a9fe:a9fe", "::169.254.169.254", "2002:a9fe:a9fe::1"] {
            let denial = policy.denial(of: try Self.address(carrier))
            #expect(denial?.range.description == "169.254.0.0/16", "\(carrier)")
            #expect(denial?.description == "\(try Self.address(carrier)) leads to 169.254.169.254, which is in 169.254.0.0/16, which http.deny refuses")
        }
        // The unspecified address reaches loopback.
        let loopback = try Self.policy(deny: ["127.0.0.0/8", "::1/128"])
        #expect(loopback.denial(of: try Self.address("0.0.0.0")) != nil)
        #expect(loopback.denial(of: try Self.address("::")) != nil)
        #expect(loopback.denial(of: try Self.address("::2")) == nil)
        // A range may be written over the IPv4-mapped space too.
        let mapped = try Self.policy(deny: ["::ffff:0:0/96"])
        #expect(mapped.denial(of: try Self.address("8.8.8.8")) != nil)
        #expect(mapped.denial(of: try Self.address("2001:db8::1")) == nil)
    }

    @Test("the most specific entry wins, a tie denies, and a listed name is allowed whatever it resolves to")
    func specificity() throws {
        let policy = try Self.policy(allow: ["10.1.2.0/24", "10.9.9.9/8", "internal.example.com", "*.corp.example"], deny: ["10.0.0.0/8", "10.1.2.3"])
        #expect(policy.denial(of: try Self.address("10.1.2.4")) == nil)
        #expect(policy.denial(of: try Self.address("10.1.2.3"))?.range.description == "10.1.2.3")
        #expect(policy.denial(of: try Self.address("10.2.0.1")) != nil)
        let inside = [try Self.address("10.7.7.7")]
        #expect(policy.denial(host: "internal.example.com", addresses: inside) == nil)
        #expect(policy.denial(host: "Internal.Example.COM.", addresses: inside) == nil)
        #expect(policy.denial(host: "db.corp.example", addresses: inside) == nil)
        #expect(policy.denial(host: "corp.example", addresses: inside) != nil)
        #expect(policy.denial(host: "evilinternal.example.com", addresses: inside) != nil)
        // One denied address among several refuses the name.
        #expect(policy.denial(host: "mixed.example", addresses: [try Self.address("93.184.216.34"), inside[0]]) != nil)
        let allowList = try Self.policy(allow: ["api.partner.example", "192.0.2.0/24"], deny: ["0.0.0.0/0", "::/0"])
        #expect(allowList.denial(host: "api.partner.example", addresses: [try Self.address("203.0.113.9")]) == nil)
        #expect(allowList.denial(host: "other.example", addresses: [try Self.address("192.0.2.7")]) == nil)
        #expect(allowList.denial(host: "other.example", addresses: [try Self.address("203.0.113.9")]) != nil)
        #expect(allowList.denial(host: "other.example", addresses: [try Self.address("2001:db8::1")]) != nil)
    }

    @Test("entries that are neither ranges nor (for allow) names are refused, naming the entry")
    func badEntries() {
        for (allow, deny, named) in [([], ["10.0.0.0/33"], "10.0.0.0/33"), ([], ["example.com"], "example.com"),
                                     (["exa mple"], [], "exa mple"), ([], ["fe80::/129"], "fe80::/129"), ([], ["10.0.0.0/x"], "10.0.0.0/x")] {
            #expect(throws: SchedulerError.self) { try TargetPolicy.check(allow: allow, deny: deny) }
            do {
                try TargetPolicy.check(allow: allow, deny: deny)
            } catch {
                #expect(error.message.contains(named))
            }
        }
    }

    @Test("a literal address in a denied range is refused at registration with denied_target, for every kind, and nothing changes")
    func literalRefusedAtRegistration() throws {
        var configuration = SchedulerConfiguration()
        configuration.targetPolicy = try Self.policy(deny: ["169.254.0.0/16", "fe80::/10"])
        var h = Harness(configuration: configuration)
        let bodies: [RequestBody] = [
            .submit(submitSpec(url: "http://169.254.169.254/latest/meta-data/")),
            .submit(submitSpec(url: "http://[::ffff:169.254.169.254]:8080/")),
            .registerCountdown(CountdownSpec(key: "k", durationMs: 5_000, onExpire: RequestSpec(method: "POST", url: "http://169.254.1.1/hook"))),
            .registerPoll(PollSpec(url: "http://169.254.0.1/jobs/7", everyMs: 1_000, until: "status == 200")),
            .registerGroup(GroupSpec(members: [RequestSpec(url: "http://example.com/"), RequestSpec(url: "http://169.254.0.9/")])),
        ]
        for body in bodies {
            let effects = h.request(body)
            #expect(effects.errorCodes == [.deniedTarget], "\(body)")
            #expect(effects.sends.isEmpty)
            #expect(h.persisted.isEmpty)
        }
        let message = try #require(h.request(bodies[0]).replies.first.flatMap { reply -> String? in
            if case .failure(let error) = reply.result { error.message } else { nil }
        })
        #expect(message.contains("169.254.169.254 is in 169.254.0.0/16"))
        // A name is not resolved at registration: it is checked when its attempt connects.
        let named = h.submitted(submitSpec(url: "http://metadata.internal/latest"))
        #expect(named.effects.sends.count == 1)
    }

    @Test("a denied attempt ends a request job failed at once, a poll job failed, and a group member failed: no retry")
    func deniedAttemptEndsTheJob() throws {
        let why = TargetPolicy.Denial(address: try Self.address("10.0.0.5"), range: try #require(TargetPolicy.Range("10.0.0.0/8"))).jobError
        #expect(why == "denied_target: 10.0.0.5 is in 10.0.0.0/8, which http.deny refuses")
        var h = Harness()
        let (reply, effects) = h.submitted(submitSpec(maxAttempts: 5))
        let request = JobID(reply.job.id)
        let ended = h.handle(.httpFinished(request, attempt: try #require(effects.sends.first).attempt, .denied(why)))
        #expect(ended.events(.failed).map(\.error) == [why])
        #expect(ended.events(.retrying).isEmpty)
        #expect(h.scheduler.job(request)?.state == .failed)

        let (poll, pollEffects) = h.poll(pollSpec(maxFailures: 5))
        let pollEnded = h.handle(.httpFinished(poll, attempt: try #require(pollEffects.sends.first).attempt, .denied(why)))
        #expect(pollEnded.events(.failed).map(\.error) == [why])
        #expect(h.scheduler.job(poll)?.state == .failed)

        let (group, groupEffects) = h.group(GroupSpec(members: [RequestSpec(url: "https://a.example/", maxAttempts: 3)], follow: true))
        let groupEnded = h.handle(.httpFinished(group, attempt: try #require(groupEffects.sends.first).attempt, .denied(why)))
        #expect(groupEnded.events(.member).map(\.error) == [why])
        #expect(groupEnded.events(.member).map(\.memberState) == [.failed])
        #expect(groupEnded.events(.completed).map(\.state) == [.failed])
    }
}
