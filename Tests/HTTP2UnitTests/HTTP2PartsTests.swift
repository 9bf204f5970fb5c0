import HTTPTypes
import Testing

@testable import HTTP2

@Suite("HTTP/2 client parts")
struct HTTP2PartsTests {
    @Test(arguments: [
        ("https://api.push.apple.com/3/device/abc", "https://api.push.apple.com"),
        ("https://API.sandbox.push.apple.com:443/3/device/abc?x=1", "https://api.sandbox.push.apple.com:443"),
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
        ("https://user:secret@fcm.googleapis.com/v1/projects/p/messages:send", "https://fcm.googleapis.com"),
        ("https://[::1]:4433/x#frag", "https://[::1]:4433"),
        ("HTTPS://Bücher.Example:8443/x", "https://bücher.example:8443"),
    ])
    func originKeepsSchemeHostAndPortOnly(url: String, origin: String) {
        #expect(RequestOrigin(url: url)?.description == origin)
    }

    @Test(arguments: [
        "/3/device/abc", "ftp://host/x", "https:///x", "https://ho st/x", "https://ho\tst/x", "https://hö\u{00A0}st/x",
        "api.push.apple.com/3", "https:/",
    ])
    func originRejectsURLsThatAreNotAbsoluteHTTP(url: String) {
        #expect(RequestOrigin(url: url) == nil)
    }

    @Test(arguments: [
        ("https://api.push.apple.com/3/device/b", true), ("https://api.push.apple.com?x", true),
        ("https://api.push.apple.com", false), ("https://api.push.apple.com.evil/3", false),
        ("https://api.push.apple.com@evil/3", false), ("https://api.push.apple.com:443/3", false),
        ("HTTPS://api.push.apple.com/3", false), ("http://api.push.apple.com/3", false),
    ])
    func anOriginBeginsOnlyURLsItWouldBeParsedFrom(url: String, begins: Bool) throws {
        let origin = try #require(RequestOrigin(url: "https://API.push.apple.com/3/device/a"))
        #expect(origin.begins(url) == begins)
        if begins { #expect(RequestOrigin(url: url) == origin) }
    }

    @Test func aGroupsRequestsTakeTheirOwnOriginsAndFlags() throws {
        var second = HTTPRequest(method: "POST", url: "https://push.example/b", deadline: .seconds(1))
        second.publicAddressesOnly = true
        let requests = [
            HTTPRequest(method: "POST", url: "https://push.example/a", deadline: .seconds(1)), second,
            HTTPRequest(method: "POST", url: "https://push.example.evil/c", deadline: .seconds(1)),
        ]
        let checked = GroupedRequest.checked(requests) { _, _ in Issue.record("no request is invalid") }
        #expect(
            checked.map(\.origin.description) == [
                "https://push.example", "https://push.example", "https://push.example.evil",
            ])
        #expect(checked.map(\.origin.publicAddressesOnly) == [false, true, false])
    }

    @Test(arguments: [
        ("GET", "", RequestMethod.get), ("GET", "x", .withBody(custom: "GET")), ("HEAD", "", .head),
        ("POST", "", .withBody(custom: nil)), ("POST", "{}", .withBody(custom: nil)),
        ("PUT", "{}", .withBody(custom: "PUT")), ("DELETE", "", .withBody(custom: "DELETE")),
    ])
    func methodsMapToLibcurlsWaysOfSendingABody(method: String, body: String, expected: RequestMethod) {
        let request = HTTPRequest(method: method, url: "https://h/", body: Array(body.utf8), deadline: .seconds(1))
        #expect(RequestMethod(validating: request) == expected)
    }

    @Test(arguments: [
        ("get", HTTPHeader("a", "b")), ("PO ST", HTTPHeader("a", "b")), ("", HTTPHeader("a", "b")),
        ("POST", HTTPHeader("a", "b\r\nc: d")), ("POST", HTTPHeader("a: b", "c")), ("POST", HTTPHeader("", "c")),
        ("POST", HTTPHeader("a", "b\nc")),
    ])
    func badMethodsAndLineBreakingHeadersAreRejected(method: String, header: HTTPHeader) {
        let request = HTTPRequest(method: method, url: "https://h/", headers: [header], deadline: .seconds(1))
        #expect(RequestMethod(validating: request) == nil)
    }

    @Test(arguments: [2, 19, 20, 21, 62])
    func untrustedOrMismatchedCertificatesHaveAVerdict(code: Int) {
        #expect(TransferFailure.certificateVerdict(code) != nil)
    }
}

@Suite("IdleTurnPacer")
struct IdleTurnPacerTests {
    @Test func threeQuickIdleTurnsInARowMakeTheNextTurnsWaitByThemselves() {
        var pacer = IdleTurnPacer()
        for _ in 0..<2 {
            pacer.turnEnded(didSomething: false, waited: .zero)
            #expect(!pacer.paces)
        }
        pacer.turnEnded(didSomething: false, waited: .microseconds(200))
        #expect(pacer.paces)
    }

    @Test func aTurnThatWaitedOrDidSomethingStartsTheCountAgain() {
        var pacer = IdleTurnPacer()
        for turn in [(false, Duration.zero), (false, .zero), (false, .milliseconds(5)), (false, .zero), (false, .zero)]
        {
            pacer.turnEnded(didSomething: turn.0, waited: turn.1)
        }
        #expect(!pacer.paces)
        pacer.turnEnded(didSomething: true, waited: .zero)
        pacer.turnEnded(didSomething: false, waited: .zero)
        pacer.turnEnded(didSomething: false, waited: .zero)
        #expect(!pacer.paces)
    }

    @Test func pacingLastsItsTurnsThenLibcurlsPollIsTriedAgain() {
        var pacer = IdleTurnPacer()
        for _ in 0..<3 { pacer.turnEnded(didSomething: false, waited: .zero) }
        for _ in 0..<pacer.pacedTurns {
            #expect(pacer.paces)
            pacer.turnEnded(didSomething: false, waited: pacer.pause)
        }
        #expect(!pacer.paces)
    }

    @Test func aTurnThatDoesSomethingEndsThePacing() {
        var pacer = IdleTurnPacer()
        for _ in 0..<3 { pacer.turnEnded(didSomething: false, waited: .zero) }
        #expect(pacer.paces)
        pacer.turnEnded(didSomething: true, waited: .milliseconds(3))
        #expect(!pacer.paces)
    }
}

@Suite("RefusalBackoff")
struct RefusalBackoffTests {
    let start = ContinuousClock.now

    @Test func theFirstRefusalInARowIsResentAtOnce() {
        var backoff = RefusalBackoff()
        backoff.refused(at: start)
        #expect(backoff.allowsStart(at: start))
    }

    @Test func laterRefusalsWaitDoublingUpToTheCap() {
        var backoff = RefusalBackoff()
        var waits: [Duration] = []
        for _ in 0..<7 {
            backoff.refused(at: start)
            waits.append(backoff.notBefore.map { $0 - start } ?? .zero)
        }
        #expect(
            waits == [
                .zero, .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(2), .seconds(2),
            ])
        #expect(!backoff.allowsStart(at: start + .milliseconds(1999)))
        #expect(backoff.allowsStart(at: start + .seconds(2)))
    }

    @Test func aResponseEndsTheBackoff() {
        var backoff = RefusalBackoff()
        for _ in 0..<3 { backoff.refused(at: start) }
        backoff.answered()
        #expect(backoff.allowsStart(at: start))
        backoff.refused(at: start)
        #expect(backoff.allowsStart(at: start), "a refusal after a response is the first in a row again")
    }

    @Test func aServerRefusingForeverNeverMakesTheWaitOverflow() {
        var backoff = RefusalBackoff()
        for _ in 0..<200 { backoff.refused(at: start) }
        #expect(backoff.notBefore == start + RefusalBackoff.cap)
    }
}

@Suite("AcceptedStreams")
struct AcceptedStreamsTests {
    @Test func startsAtItsBoundOfAtLeastOne() {
        #expect(AcceptedStreams(bound: 200).allowed == 200)
        #expect(AcceptedStreams(bound: 200).isAtBound)
        #expect(AcceptedStreams(bound: 0).allowed == 1)
    }

    @Test func eachRefusalHalvesTheLesserOfTheAllowanceAndWhatIsInFlight() {
        var streams = AcceptedStreams(bound: 200)
        streams.refused(stillInFlight: 199)
        #expect(streams.allowed == 99)
        streams.refused(stillInFlight: 30)
        #expect(streams.allowed == 15)
        streams.refused(stillInFlight: 100)
        #expect(streams.allowed == 7)
        #expect(!streams.isAtBound)
    }

    @Test func aStormOfRefusalsLeavesOneRequestInFlight() {
        var streams = AcceptedStreams(bound: 200)
        for inFlight in (0..<199).reversed() { streams.refused(stillInFlight: inFlight) }
        #expect(streams.allowed == 1)
    }

    @Test func eachResponseAddsOneBackUpToTheBound() {
        var streams = AcceptedStreams(bound: 4)
        streams.refused(stillInFlight: 0)
        var allowances: [Int] = []
        for _ in 0..<5 {
            streams.answered()
            allowances.append(streams.allowed)
        }
        #expect(allowances == [2, 3, 4, 4, 4])
        #expect(streams.isAtBound)
    }
}
