public import Essentials
import Foundation
public import HTTPTypes
public import PushCore
import Signing

/// How the APNs client authenticates.
public enum APNsAuthentication: Sendable {
    /// Token auth: an ES256 provider token from this key in every request's `authorization` header.
    case token(APNsSigningKey)
    /// Certificate auth: the transport presents the client certificate during the TLS handshake
    /// (`HTTP2TransportConfiguration.clientCertificate`, one transport per certificate); requests carry no
    /// `authorization` header, and APNs takes the topic from the certificate when `apns-topic` is absent.
    case certificate
}

/// Where and how the APNs client sends.
public struct APNsConfiguration: Sendable {
    /// Base URL for production device tokens (`APNS_URL`).
    public var productionURL: String
    /// Base URL for development-build device tokens (`APNS_SANDBOX_URL`).
    public var sandboxURL: String
    public var authentication: APNsAuthentication
    /// The longest one request may take, queueing included.
    public var requestDeadline: Duration

    public init(
        authentication: APNsAuthentication, productionURL: String, sandboxURL: String,
        requestDeadline: Duration = .seconds(10)
    ) {
        self.authentication = authentication
        self.productionURL = productionURL
        self.sandboxURL = sandboxURL
        self.requestDeadline = requestDeadline
    }
}

/// Sends notifications to APNs (`POST /3/device/<token>`) and classifies every answer into a `DeliveryOutcome`.
public final class APNsClient: Sendable {
    private let configuration: APNsConfiguration
    private let transport: any HTTPTransport
    private let clock: any WallClock
    private let tokens: APNsProviderTokens?

    /// A client over `transport`; `clock` decides provider-token ages and Retry-After dates. With `signers`, the
    /// provider token is the one every client of the same key shares.
    public init(
        configuration: APNsConfiguration, transport: any HTTPTransport, clock: any WallClock = SystemWallClock(),
        signers: APNsTokenSigners? = nil
    ) {
        self.configuration = configuration
        self.transport = transport
        self.clock = clock
        if case .token(let key) = configuration.authentication {
            tokens = signers?.tokens(for: key, clock: clock) ?? APNsProviderTokens(key: key, clock: clock)
        } else {
            tokens = nil
        }
    }

    /// How many provider tokens this client has signed (for metrics and tests).
    public var providerTokensIssued: Int { tokens?.generation ?? 0 }

    /// Sends one notification. `headers` are the `apns-*` headers (push type, topic, priority, …) and `body` the
    /// JSON payload, both already built; `sandbox` picks the development host. Never throws: every failure is an
    /// outcome. An `ExpiredProviderToken` answer renews the token and resends once, on a new connection.
    public func send(deviceToken: String, sandbox: Bool, headers: [HTTPHeader], body: [UInt8]) async -> DeliveryOutcome
    {
        guard Self.isWellFormed(deviceToken) else {
            return .invalidToken(status: nil, reason: "BadDeviceToken", invalidSinceMillis: nil)
        }
        let url = "\(sandbox ? configuration.sandboxURL : configuration.productionURL)/3/device/\(deviceToken)"
        var renewed = false
        while true {
            var request = HTTPRequest(
                method: "POST", url: url, headers: headers, body: body, deadline: configuration.requestDeadline,
                freshConnection: renewed)
            var generation: Int?
            if let tokens {
                do {
                    let token = try tokens.current()
                    generation = token.generation
                    request.headers.append(HTTPHeader("authorization", "bearer \(token.value)"))
                } catch {
                    return .credentials(status: nil, reason: "cannot sign a provider token: \(error.message)")
                }
            }
            let response: HTTPResponse
            do {
                response = try await transport.send(request)
            } catch {
                return DeliveryOutcome(transportError: error)
            }
            let (outcome, action) = APNsResponseClassifier.classify(
                response, sentID: headers.first { $0.hasName("apns-id") }?.value, now: clock.now())
            guard action == .credentials(renewable: true), !renewed, let tokens, let generation,
                (try? tokens.renew(afterExpiryOf: generation)) == true
            else { return outcome }
            renewed = true
        }
    }

    /// APNs device tokens are hex strings; anything else is refused before it reaches a URL.
    static func isWellFormed(_ deviceToken: String) -> Bool {
        !deviceToken.isEmpty && deviceToken.utf8.count <= 200 && deviceToken.utf8.allSatisfy(\.isASCIIHexDigit)
    }
}

extension UInt8 {
    fileprivate var isASCIIHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
