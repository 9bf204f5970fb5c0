import PushCore
import TestSupport
import Testing

@Suite struct WebPushSubscriptionTests {
    static let keys =
        #""keys":{"p256dh":"BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4","auth":"BTBZMqHH6r4Tts7J_aSIgg"}"#

    static func token(endpoint: String, keys: String = keys) -> String {
        #"{"endpoint":"\#(endpoint)",\#(keys)}"#
    }

    @Test func readsTheEndpointTheOriginAndTheKeys() throws {
        let subscription = try WebPushSubscription(token: Fixture.webToken)
        #expect(subscription.endpoint == "https://push.example.net/push/JzLQ3raZJfFBR0aqvOMsLrt54w4rJUsV")
        #expect(subscription.origin == "https://push.example.net")
        #expect(subscription.host == "push.example.net")
        #expect(subscription.port == nil)
        #expect(subscription.p256dh.count == 65 && subscription.p256dh.first == 0x04)
        #expect(subscription.auth == [5, 48, 89, 50, 161, 199, 234, 190, 19, 182, 206, 201, 253, 164, 136, 130])
    }

    @Test(
        arguments: [
            ("https://Push.Example.NET:8443/a?b=c", "https://push.example.net:8443", "push.example.net", 8443),
            ("https://[2001:DB8::1]:443/x", "https://[2001:db8::1]:443", "2001:db8::1", 443),
            ("HTTPS://fcm.googleapis.com/fcm/send/x", "https://fcm.googleapis.com", "fcm.googleapis.com", nil),
        ] as [(String, String, String, Int?)])
    func lowercasesTheOriginAndReadsThePort(endpoint: String, origin: String, host: String, port: Int?) throws {
        let subscription = try WebPushSubscription(token: Self.token(endpoint: endpoint))
        #expect(subscription.origin == origin)
        #expect(subscription.host == host)
        #expect(subscription.port == port)
        #expect(subscription.endpoint == endpoint)
    }

    @Test(arguments: [
        ("https://push.example.net/p", #"{"endpoint":"https://push.example.net/p"}"#, "keys: must be an object"),
        ("", #"["https://push.example.net/p"]"#, "must be a JSON object"),
        ("", #"{"endpoint":42,\#(keys)}"#, "endpoint: must be a string"),
        ("", "not json", "must be a PushSubscription's JSON (invalid JSON at byte 0: unexpected character)"),
        ("http://push.example.net/p", "", "endpoint: must be an https URL"),
        ("https://", "", "endpoint: must be an https URL"),
        ("ftp://push.example.net/p", "", "endpoint: must be an https URL"),
        ("https://push.example.net/p#frag", "", "endpoint: must not have a fragment"),
        ("https://user:pw@push.example.net/p", "", "endpoint: must not carry user information"),
        ("https://push.example.net/a b", "", "endpoint: must be printable ASCII without spaces"),
        ("https://püsh.example.net/p", "", "endpoint: must be printable ASCII without spaces"),
        ("https:///p", "", "endpoint: must name a host"),
        ("https://:443/p", "", "endpoint: must name a host"),
        ("https://push.example.net:0/p", "", "endpoint: the port must be a number from 1 to 65535"),
        ("https://push.example.net:65536/p", "", "endpoint: the port must be a number from 1 to 65535"),
        ("https://push.example.net:+443/p", "", "endpoint: the port must be a number from 1 to 65535"),
        ("https://push.example.net:99999999999999999999/p", "", "endpoint: the port must be a number from 1 to 65535"),
        ("https://[::1/p", "", "endpoint: an IPv6 host must end with ]"),
        ("https://[::1]x/p", "", "endpoint: only a port may follow an IPv6 host"),
    ])
    func refusesWhatIsNoPushSubscriptionNamingTheRule(endpoint: String, token: String, message: String) {
        let text = token.isEmpty ? Self.token(endpoint: endpoint) : token
        #expect(throws: WebPushSubscriptionError(message)) { try WebPushSubscription(token: text) }
    }

    @Test(arguments: [
        #""keys":{"p256dh":"BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw","auth":"BTBZMqHH6r4Tts7J_aSIgg"}"#,
        #""keys":{"p256dh":"AyVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcx","auth":"BTBZMqHH6r4Tts7J_aSIgg"}"#,
        #""keys":{"p256dh":"ACVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4","auth":"BTBZMqHH6r4Tts7J_aSIgg"}"#,
        #""keys":{"p256dh":"BCVxsr7N+eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4","auth":"BTBZMqHH6r4Tts7J_aSIgg"}"#,
        #""keys":{"auth":"BTBZMqHH6r4Tts7J_aSIgg"}"#,
    ])
    func refusesAP256dhThatIsNoUncompressedPoint(keys: String) {
        #expect(
            throws: WebPushSubscriptionError("keys.p256dh: must be an uncompressed P-256 point, 65 bytes in base64url")
        ) {
            try WebPushSubscription(token: Self.token(endpoint: "https://push.example.net/p", keys: keys))
        }
    }

    @Test(arguments: ["BTBZMqHH6r4Tts7J_aSI", "BTBZMqHH6r4Tts7J_aSIggAA", "", "BTBZMqHH6r4Tts7J/aSIgg"])
    func refusesAnAuthSecretThatIsNot16Bytes(auth: String) {
        let keys =
            #""keys":{"p256dh":"BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4","auth":"\#(auth)"}"#
        #expect(throws: WebPushSubscriptionError("keys.auth: must be 16 bytes in base64url")) {
            try WebPushSubscription(token: Self.token(endpoint: "https://push.example.net/p", keys: keys))
        }
    }

    @Test func refusesATokenOver4KBWithoutReadingIt() {
        let endpoint = "https://push.example.net/" + String(repeating: "a", count: 4000)
        #expect(throws: WebPushSubscriptionError("must be at most 4096 bytes")) {
            try WebPushSubscription(token: Self.token(endpoint: endpoint))
        }
    }

    @Test func errorsNeverQuoteTheToken() {
        let secret = "SECRETPATH"
        for endpoint in [
            "http://push.example.net/\(secret)", "https://u@h/\(secret)", "https://h/\(secret)#x",
            "https://h:0/\(secret)",
        ] {
            do {
                _ = try WebPushSubscription(token: Self.token(endpoint: endpoint))
                Issue.record("accepted \(endpoint)")
            } catch {
                #expect(!error.message.contains(secret))
            }
        }
    }
}
