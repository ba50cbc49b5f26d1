import ReqdProtocol
import Testing
@testable import ReqdCore

@Suite("Request bodies of any bytes, in base64")
struct Base64Tests {
    @Test("RFC 4648's test vectors decode, with or without padding")
    func vectors() {
        let vectors = ["": "", "Zg==": "f", "Zm8=": "fo", "Zm9v": "foo", "Zm9vYg==": "foob", "Zm9vYmE=": "fooba", "Zm9vYmFy": "foobar"]
        for (encoded, decoded) in vectors {
            #expect(Base64.decode(encoded) == Array(decoded.utf8), "\(encoded)")
            let bare = String(encoded.prefix { $0 != "=" })
            #expect(Base64.decode(bare) == Array(decoded.utf8), "\(bare)")
        }
        #expect(Base64.decode("AP8Afw==") == [0x00, 0xFF, 0x00, 0x7F])
    }

    @Test("anything else is refused", arguments: ["Z", "Zg=", "Zg===", "Zm9v YmFy", "Zm9-", "Zm9_", "Zh==", "=Zg=", "Zm9v\n"])
    func refused(text: String) {
        #expect(Base64.decode(text) == nil)
    }

    @Test("submit and register-poll take body_base64; it goes out as its bytes; with body too, or not base64, it is refused")
    func onTheWire() throws {
        var h = Harness()
        let (_, effects) = h.submitted(SubmitSpec(request: RequestSpec(method: "PUT", url: "https://api.example/blob", bodyBase64: "AP8Afw==")))
        #expect(effects.sends.first?.request.body == [0x00, 0xFF, 0x00, 0x7F])
        let both = h.request(.submit(SubmitSpec(request: RequestSpec(url: "https://api.example/a", body: "x", bodyBase64: "eA=="))))
        #expect(both.errorCodes == [.conflictingFields])
        let bad = h.request(.submit(SubmitSpec(request: RequestSpec(url: "https://api.example/a", bodyBase64: "not base64!"))))
        #expect(bad.errorCodes == [.badField])
        let poll = h.request(
            .registerPoll(PollSpec(url: "https://api.example/s", method: "POST", bodyBase64: "AAE=", everyMs: 1000, until: "status == 200", ephemeral: true)))
        #expect(poll.sends.first?.request.body == [0x00, 0x01])
    }
}
