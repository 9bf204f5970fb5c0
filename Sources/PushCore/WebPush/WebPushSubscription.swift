import Essentials

/// A browser's push subscription, the token of a `web` device: `PushSubscription.toJSON()` as compact JSON,
/// `{"endpoint":"https://…","keys":{"p256dh":"…","auth":"…"}}` (`expirationTime` allowed and ignored).
///
/// Parsed from hostile data (the registry, an event): the endpoint must be an `https` URL without user
/// information or fragment, `p256dh` an uncompressed P-256 point's 65 bytes, `auth` 16 bytes, the whole at most
/// `maximumTokenBytes`. Whether the point lies on the curve is checked by the encryption, which refuses one that
/// does not. Where the endpoint may point (IP literals, ports) is `WebPushEndpointPolicy`'s to say.
public struct WebPushSubscription: Sendable, Equatable {
    /// The longest token accepted, in bytes.
    public static let maximumTokenBytes = 4096

    /// The push service's URL for this subscription; it names the subscription, so never log it.
    public var endpoint: String
    /// `https://host[:port]`, lowercased: the VAPID `aud` and the unit of connection sharing.
    public var origin: String
    /// The endpoint's host, lowercased; an IPv6 literal without its brackets.
    public var host: String
    /// The endpoint's port, when the URL names one.
    public var port: Int?
    /// The browser's public key: an uncompressed P-256 point (`0x04‖x‖y`, 65 bytes).
    public var p256dh: [UInt8]
    /// The browser's authentication secret, 16 bytes.
    public var auth: [UInt8]

    /// Parses `token`; the error says what is wrong without quoting the token.
    public init(token: String) throws(WebPushSubscriptionError) {
        guard token.utf8.count <= Self.maximumTokenBytes else {
            throw WebPushSubscriptionError("must be at most \(Self.maximumTokenBytes) bytes")
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(Array(token.utf8))
        } catch {
            throw WebPushSubscriptionError("must be a PushSubscription's JSON (\(error.description))")
        }
        guard case .object = value else { throw WebPushSubscriptionError("must be a JSON object") }
        guard let endpoint = value["endpoint"]?.stringValue else {
            throw WebPushSubscriptionError("endpoint: must be a string")
        }
        guard case .object = value["keys"] else { throw WebPushSubscriptionError("keys: must be an object") }
        guard let p256dhText = value["keys"]?["p256dh"]?.stringValue, let p256dh = Base64URL.decode(p256dhText),
            p256dh.count == 65, p256dh.first == 0x04
        else {
            throw WebPushSubscriptionError("keys.p256dh: must be an uncompressed P-256 point, 65 bytes in base64url")
        }
        guard let authText = value["keys"]?["auth"]?.stringValue, let auth = Base64URL.decode(authText),
            auth.count == 16
        else {
            throw WebPushSubscriptionError("keys.auth: must be 16 bytes in base64url")
        }
        let url = try Self.url(endpoint)
        self.endpoint = endpoint
        origin = url.origin
        host = url.host
        port = url.port
        self.p256dh = p256dh
        self.auth = auth
    }

    /// The origin, host and port of an endpoint URL: `https`, printable ASCII, no user information, no fragment.
    private static func url(_ endpoint: String) throws(WebPushSubscriptionError) -> (
        origin: String, host: String, port: Int?
    ) {
        let scheme = "https://"
        let bytes = Array(endpoint.utf8)
        guard bytes.count > scheme.utf8.count,
            bytes.prefix(scheme.utf8.count).elementsEqual(scheme.utf8, by: { $0 | 0x20 == $1 | 0x20 })
        else {
            throw WebPushSubscriptionError("endpoint: must be an https URL")
        }
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw WebPushSubscriptionError("endpoint: must be printable ASCII without spaces")
        }
        guard !bytes.contains(UInt8(ascii: "#")) else {
            throw WebPushSubscriptionError("endpoint: must not have a fragment")
        }
        let rest = bytes.dropFirst(scheme.utf8.count)
        let authority = rest.prefix { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") }
        guard !authority.contains(UInt8(ascii: "@")) else {
            throw WebPushSubscriptionError("endpoint: must not carry user information")
        }
        let lowered = String(decoding: authority.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
        let parts: URLAuthority
        do {
            parts = try URLAuthority(lowered)
        } catch {
            throw WebPushSubscriptionError("endpoint: \(error)")
        }
        return ("https://" + lowered, parts.host, parts.port.map(Int.init))
    }
}

/// Why a `web` device's token is not a push subscription: the field and the rule, never the token.
public struct WebPushSubscriptionError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
