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

    @Test func aMissingHeaderIsNil() {
        #expect(response.header("retry-after") == nil)
    }

    @Test func errorsDescribeTheirKindAndMessage() {
        #expect(HTTPError(.timeout, "no response in 10 s").description == "timeout: no response in 10 s")
    }
}
