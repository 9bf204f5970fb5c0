import PushCore
import TestSupport
import Testing

@Suite struct WebPushEndpointPolicyTests {
    private func refusal(_ endpoint: String, allowsPrivate: Bool = false) throws -> String? {
        let subscription = try WebPushSubscription(token: Fixture.webToken(endpoint: endpoint))
        return WebPushEndpointPolicy(allowsPrivateEndpoints: allowsPrivate).refusal(of: subscription)
    }

    @Test(arguments: [
        "https://fcm.googleapis.com/fcm/send/x", "https://updates.push.services.mozilla.com/wpush/v2/x",
        "https://web.push.apple.com/x", "https://wns2-par02p.notify.windows.com/w/?token=x",
        "https://push.example.net:443/x", "https://8.8.8.8/x", "https://[2001:4860::1]/x", "https://1.2.3.4.example/x",
        "https://172.32.0.1/x", "https://100.128.0.1/x",
    ])
    func publicEndpointsOnPort443AreAllowed(endpoint: String) throws {
        #expect(try refusal(endpoint) == nil)
    }

    @Test(arguments: [
        ("https://127.0.0.1/x", "the endpoint is a private IPv4 address"),
        ("https://10.1.2.3/x", "the endpoint is a private IPv4 address"),
        ("https://172.16.0.1/x", "the endpoint is a private IPv4 address"),
        ("https://172.31.255.255/x", "the endpoint is a private IPv4 address"),
        ("https://192.168.1.1/x", "the endpoint is a private IPv4 address"),
        ("https://169.254.169.254/x", "the endpoint is a private IPv4 address"),
        ("https://100.64.0.1/x", "the endpoint is a private IPv4 address"),
        ("https://0.0.0.0/x", "the endpoint is a private IPv4 address"),
        ("https://224.0.0.1/x", "the endpoint is a private IPv4 address"),
        ("https://255.255.255.255/x", "the endpoint is a private IPv4 address"),
        ("https://[::1]/x", "the endpoint is a private IPv6 address"),
        ("https://[::]/x", "the endpoint is a private IPv6 address"),
        ("https://[fe80::1]/x", "the endpoint is a private IPv6 address"),
        ("https://[fd00::1]/x", "the endpoint is a private IPv6 address"),
        ("https://[ff02::1]/x", "the endpoint is a private IPv6 address"),
        ("https://[::ffff:127.0.0.1]/x", "the endpoint is a private IPv4 address"),
        ("https://[::ffff:7f00:1]/x", "the endpoint is a private IPv4 address"),
        ("https://localhost/x", "the endpoint's host is localhost"),
        ("https://a.localhost/x", "the endpoint's host is localhost"),
        ("https://127.1/x", "the endpoint's host is a numeric address in a non-canonical form"),
        ("https://2130706433/x", "the endpoint's host is a numeric address in a non-canonical form"),
        ("https://0x7f.0.0.1/x", "the endpoint's host is a numeric address in a non-canonical form"),
        ("https://127.0.0.1./x", "the endpoint is a private IPv4 address"),
        ("https://[zz::1]/x", "the endpoint's host is a numeric address in a non-canonical form"),
        ("https://push.example.net:8443/x", "the endpoint's port 8443 is not 443"),
        ("https://127.0.0.1:8443/x", "the endpoint is a private IPv4 address"),
    ])
    func privateAddressesAndOtherPortsAreRefusedByDefault(endpoint: String, reason: String) throws {
        #expect(try refusal(endpoint) == reason)
    }

    @Test(arguments: ["https://127.0.0.1:8443/x", "https://[::1]/x", "https://localhost:1/x", "https://10.0.0.1/x"])
    func allowingPrivateEndpointsAllowsThemAndAnyPort(endpoint: String) throws {
        #expect(try refusal(endpoint, allowsPrivate: true) == nil)
    }
}
