import HTTPTypes
import Testing

@Suite("HTTP responses and errors")
struct HTTPResponseTests {
    let response = HTTPResponse(
        status: 410, headers: [HTTPHeader("APNS-ID", "first"), HTTPHeader("apns-id", "second")], body: [])

    @Test func headerNamesMatchWhateverTheirCase() {
        #expect(response.header("apns-id") == "first")
        #expect(response.header("Apns-Id") == "first")
    }

    @Test func headerValuesComeWithoutSurroundingWhitespace() {
        let padded = HTTPResponse(status: 200, headers: [HTTPHeader("apns-id", " \t id-1 \r\n")])
        #expect(padded.header("apns-id") == "id-1")
        let blank = HTTPResponse(status: 200, headers: [HTTPHeader("apns-id", " \t ")])
        #expect(blank.header("apns-id") == "")
        let inner = HTTPResponse(status: 200, headers: [HTTPHeader("x", "a b")])
        #expect(inner.header("x") == "a b")
    }

    @Test func onlyLettersMatchAcrossCase() {
        #expect(HTTPHeader("Content-Length", "1").hasName("content-length"))
        // `@` and `` ` `` differ by the bit that folds case in letters; `-` and `\r` likewise.
        #expect(!HTTPHeader("a@b", "1").hasName("a`b"))
        #expect(!HTTPHeader("a-b", "1").hasName("a\rb"))
        #expect(!HTTPHeader("apns-id", "1").hasName("apns-i"))
        #expect(!HTTPHeader("apns-i", "1").hasName("apns-id"))
        #expect(!HTTPHeader("APNS-ID-2", "1").hasName("apns-id"))
        #expect(HTTPHeader("APNS-ID", "1").hasName("apns-id"))
    }

    @Test func aMissingHeaderIsNil() {
        #expect(response.header("retry-after") == nil)
    }

    @Test func errorsDescribeTheirKindAndMessage() {
        #expect(HTTPError(.timeout, "no response in 10 s").description == "timeout: no response in 10 s")
    }
}
