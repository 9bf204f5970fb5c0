import Testing

@testable import HTTP2

@Suite("KeptResponseHeaders")
struct KeptResponseHeadersTests {
    @Test func keepsEveryHeaderByDefault() {
        #expect(KeptResponseHeaders.all.keeps(Array("alt-svc".utf8)))
        #expect(KeptResponseHeaders.all.keeps(Array("".utf8)))
    }

    @Test func keepsTheNamedHeadersInAnyCaseAndNoOther() {
        let kept = KeptResponseHeaders(["apns-id", "Retry-After"])
        #expect(kept.keeps(Array("apns-id".utf8)))
        #expect(kept.keeps(Array("APNS-ID".utf8)))
        #expect(kept.keeps(Array("retry-after".utf8)))
        #expect(kept.keeps(Array("Retry-After".utf8)))
        #expect(!kept.keeps(Array("apns-idx".utf8)))
        #expect(!kept.keeps(Array("apns-i".utf8)))
        #expect(!kept.keeps(Array("content-length".utf8)))
        #expect(!kept.keeps(Array("".utf8)))
        // Only ASCII letters fold: a byte that is a letter's case bit away from a non-letter does not match.
        #expect(!kept.keeps(Array("apns\u{0D}id".utf8)))
    }

    @Test func keepsNothingWhenNoNameIsGiven() {
        #expect(!KeptResponseHeaders([]).keeps(Array("apns-id".utf8)))
    }
}
