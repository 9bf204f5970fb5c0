import HTTPTypes
import Testing

@testable import HTTP2

/// The pure parts of the nghttp2 transport: where it connects, the `:path` and `:authority` it sends, and the
/// header block it hands nghttp2.
@Suite("nghttp2 transport parts")
struct NGHTTP2PartsTests {
    @Test(arguments: [
        ("https://api.push.apple.com/3/device/abc", "api.push.apple.com", 443, "api.push.apple.com", false),
        (
            "https://API.sandbox.push.apple.com:2197/x", "api.sandbox.push.apple.com", 2197,
            "api.sandbox.push.apple.com:2197", false
        ),
        ("http://127.0.0.1:8080/health", "127.0.0.1", 8080, "127.0.0.1:8080", true),
        ("http://example.com", "example.com", 80, "example.com", false),
        ("https://[::1]:4433/x", "::1", 4433, "[::1]:4433", true),
        ("https://[::1]/x", "::1", 443, "[::1]", true),
        ("https://user:secret@fcm.googleapis.com/v1", "fcm.googleapis.com", 443, "fcm.googleapis.com", false),
    ])
    func endpointReadsHostPortAndAuthority(url: String, host: String, port: Int, authority: String, isIP: Bool) throws {
        let origin = try #require(RequestOrigin(url: url))
        let endpoint = try #require(OriginEndpoint(origin))
        #expect(endpoint.host == host)
        #expect(Int(endpoint.port) == port)
        #expect(endpoint.authority == authority)
        #expect(endpoint.isIPAddress == isIP)
    }

    @Test(arguments: [
        "https://h:0/x", "https://h:65536/x", "https://h:12ab/x", "https://h:/x", "https://[::1/x", "https://[::1]x/",
        "https://:443/x", "https://h:+443/x",
    ])
    func endpointRejectsPortsAndLiteralsThatAreNotValid(url: String) throws {
        let origin = try #require(RequestOrigin(url: url))
        #expect(OriginEndpoint(origin) == nil)
    }

    @Test(arguments: [
        ("https://api.push.apple.com/3/device/abc", "/3/device/abc"),
        ("https://h:1/a/b?x=1&y=2#frag", "/a/b?x=1&y=2"),
        ("https://h", "/"),
        ("https://h#frag", "/"),
        ("https://h?x=1", "/?x=1"),
        ("https://fcm.googleapis.com/v1/projects/p/messages:send", "/v1/projects/p/messages:send"),
    ])
    func pathIsThePathAndQueryWithoutTheFragment(url: String, path: String) throws {
        let endpoint = try #require(RequestOrigin(url: url).flatMap(OriginEndpoint.init))
        let request = HTTPRequest(method: "GET", url: url, deadline: .seconds(1))
        let block = RequestHeaderBlock(request, method: .get, endpoint: endpoint, isTLS: true)
        #expect(block.lines.filter { $0.hasPrefix(":path: ") } == [":path: \(path)"])
    }

    @Test func headerBlockHasPseudoHeadersFirstLowerCaseNamesAndNoConnectionHeaders() throws {
        let request = HTTPRequest(
            method: "POST", url: "https://api.push.apple.com:443/3/device/abc",
            headers: [
                HTTPHeader("Apns-Topic", "com.example"), HTTPHeader("Connection", "keep-alive"),
                HTTPHeader("Host", "evil"), HTTPHeader("TE", "gzip"), HTTPHeader("te", "Trailers"),
                HTTPHeader("Transfer-Encoding", "chunked"), HTTPHeader("authorization", "bearer x"),
            ],
            body: Array("{}".utf8), deadline: .seconds(1))
        let origin = try #require(RequestOrigin(url: request.url))
        let block = RequestHeaderBlock(
            request, method: .withBody(custom: nil), endpoint: try #require(OriginEndpoint(origin)), isTLS: true)
        #expect(
            block.lines == [
                ":method: POST", ":scheme: https", ":authority: api.push.apple.com:443", ":path: /3/device/abc",
                "apns-topic: com.example", "te: Trailers", "authorization: bearer x", "content-length: 2",
            ])
    }

    @Test func headerBlockKeepsTheRequestsOwnContentLengthAndSendsNoneWithoutABody() throws {
        let origin = try #require(RequestOrigin(url: "https://h/x"))
        let endpoint = try #require(OriginEndpoint(origin))
        let withLength = HTTPRequest(
            method: "PUT", url: "https://h/x", headers: [HTTPHeader("Content-Length", "0")], deadline: .seconds(1))
        #expect(
            RequestHeaderBlock(withLength, method: .withBody(custom: "PUT"), endpoint: endpoint, isTLS: true).lines
                .filter { $0.hasPrefix("content-length") } == ["content-length: 0"])
        let get = HTTPRequest(method: "GET", url: "https://h/x", deadline: .seconds(1))
        #expect(
            RequestHeaderBlock(get, method: .get, endpoint: endpoint, isTLS: true).lines == [
                ":method: GET", ":scheme: https", ":authority: h", ":path: /x",
            ])
    }
}

/// When the nghttp2 transport sends a request again.
@Suite("Resend allowance")
struct ResendAllowanceTests {
    @Test func aRefusedRequestGoesAgainUpToFiveTimes() {
        var allowance = ResendAllowance()
        var allowed: [Bool] = []
        for _ in 0..<7 {
            allowance.attemptStarted()
            allowed.append(allowance.allowsResend(after: .refused))
        }
        #expect(allowed == [true, true, true, true, true, false, false])
    }

    @Test func aRequestLostBeforeAnyResponseByteGoesAgainOnceRefusalsAside() {
        var allowance = ResendAllowance()
        var allowed: [Bool] = []
        for interruption in [ResendAllowance.Interruption.refused, .lostBeforeResponse, .lostBeforeResponse] {
            allowance.attemptStarted()
            allowed.append(allowance.allowsResend(after: interruption))
        }
        #expect(allowed == [true, true, false])
    }

    @Test func anyOtherFailureNeverGoesAgain() {
        var allowance = ResendAllowance()
        allowance.attemptStarted()
        let allowed = allowance.allowsResend(after: .failed)
        #expect(!allowed)
    }
}
