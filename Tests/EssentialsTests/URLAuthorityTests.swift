import Essentials
import Testing

@Suite struct URLAuthorityTests {
    @Test(
        arguments: [
            ("push.example.net", "push.example.net", nil),
            ("push.example.net:8443", "push.example.net", 8443),
            ("h:1", "h", 1),
            ("h:65535", "h", 65535),
            ("h:00443", "h", 443),
            ("127.0.0.1:8080", "127.0.0.1", 8080),
            ("[::1]", "::1", nil),
            ("[::1]:4433", "::1", 4433),
            ("[2001:db8::1]:443", "2001:db8::1", 443),
            ("[fe80::1%25eth0]", "fe80::1%25eth0", nil),
            ("Ünïcödé.example", "Ünïcödé.example", nil),
        ] as [(String, String, UInt16?)])
    func splitsHostAndPort(authority: String, host: String, port: UInt16?) throws {
        let parts = try URLAuthority(authority)
        #expect(parts.host == host)
        #expect(parts.port == port)
    }

    @Test func splitsASubstringInPlace() throws {
        let url = "https://push.example.net:8443/p"
        let authority = url.dropFirst("https://".count).prefix { $0 != "/" }
        #expect(try URLAuthority(authority) == URLAuthority("push.example.net:8443"))
    }

    @Test(arguments: [
        ("h:0", URLAuthorityError.portOutOfRange),
        ("h:65536", .portOutOfRange),
        ("h:99999", .portOutOfRange),
        ("h:100000", .portOutOfRange),
        ("h:99999999999999999999", .portOutOfRange),
        ("h:", .portOutOfRange),
        ("h:+443", .portOutOfRange),
        ("h:-1", .portOutOfRange),
        ("h: 443", .portOutOfRange),
        ("h:12ab", .portOutOfRange),
        ("h:443:1", .portOutOfRange),
        ("h:٤٤٣", .portOutOfRange),
        ("a:b:c", .portOutOfRange),
        ("[::1]:", .portOutOfRange),
        ("[::1]:0", .portOutOfRange),
        ("", .emptyHost),
        (":443", .emptyHost),
        ("::1", .emptyHost),
        ("[]", .emptyHost),
        ("[]:443", .emptyHost),
        ("[::1", .unclosedIPv6Literal),
        ("[", .unclosedIPv6Literal),
        ("[::1]x", .textAfterIPv6Literal),
        ("[::1]]", .textAfterIPv6Literal),
        ("[::1][::2]", .textAfterIPv6Literal),
    ])
    func refusesWhatIsNotHostAndPort(authority: String, error: URLAuthorityError) {
        #expect(throws: error) { try URLAuthority(authority) }
    }

    @Test func errorsSayWhatIsWrong() {
        #expect(URLAuthorityError.unclosedIPv6Literal.description == "an IPv6 host must end with ]")
        #expect(URLAuthorityError.textAfterIPv6Literal.description == "only a port may follow an IPv6 host")
        #expect(URLAuthorityError.emptyHost.description == "must name a host")
        #expect(URLAuthorityError.portOutOfRange.description == "the port must be a number from 1 to 65535")
    }
}
