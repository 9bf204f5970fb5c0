import Testing

@testable import Configuration

/// Provider URLs: what passes, and the fault each refusal names.
@Suite struct BaseURLTests {
    @Test(arguments: [
        "https://api.push.apple.com", "http://127.0.0.1:8443/", "https://[::1]:443/v1", "https://h:65535",
        "HTTPS://FCM.example",
    ])
    func aProviderURLPasses(url: String) {
        #expect(BaseURL.problem(with: url) == nil)
    }

    @Test(arguments: [
        ("fcm.googleapis.com", "is not an https URL like https://host:port"),
        ("https://user@fcm.example", "must not hold spaces, user info, a query or a fragment"),
        ("https://fcm.example/?q=1", "must not hold spaces, user info, a query or a fragment"),
        ("https://", "has no host"),
        ("https:///v1", "has no host"),
        ("https://:443", "holds '', which is not a host name"),
        ("https://[]:443", "holds '', which is not an IPv6 address"),
        ("https://[::1", "opens an IPv6 address with [ but never closes it"),
        ("https://[::1]x", "has text after the IPv6 address"),
        ("https://[not-v6]:443", "holds 'not-v6', which is not an IPv6 address"),
        ("https://fcm..example", "holds 'fcm..example', which is not a host name"),
        ("https://fcm_example", "holds 'fcm_example', which is not a host name"),
        ("https://h:99999", "holds the port '99999', not one from 1 to 65535"),
        ("https://h:0", "holds the port '0', not one from 1 to 65535"),
        ("https://h:", "holds the port '', not one from 1 to 65535"),
        ("https://h:+443", "holds the port '+443', not one from 1 to 65535"),
        ("https://[::1]:70000/v1", "holds the port '70000', not one from 1 to 65535"),
    ])
    func aBadProviderURLNamesItsFault(url: String, problem: String) {
        #expect(BaseURL.problem(with: url) == problem)
    }
}
