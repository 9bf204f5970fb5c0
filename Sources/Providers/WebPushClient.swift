public import Essentials
import Foundation
public import HTTPTypes
public import PushCore
import Signing
import Synchronization

/// How the Web Push client sends.
public struct WebPushConfiguration: Sendable {
    /// The longest one send may take, queueing included.
    public var requestDeadline: Duration
    /// Where an endpoint may point (`WEBPUSH_ALLOW_PRIVATE_ENDPOINTS`).
    public var policy: WebPushEndpointPolicy
    /// How long a VAPID token is valid (its `exp`, at most 24 hours); one is signed again once half of it passed.
    public var tokenLifetime: Duration

    public init(
        requestDeadline: Duration = .seconds(10), policy: WebPushEndpointPolicy = WebPushEndpointPolicy(),
        tokenLifetime: Duration = .seconds(12 * 3600)
    ) {
        self.requestDeadline = requestDeadline
        self.policy = policy
        self.tokenLifetime = min(tokenLifetime, .seconds(24 * 3600))
    }
}

/// Sends Web Push requests (RFC 8030) to each subscription's push service: the planner's plaintext encrypted for
/// the subscription (RFC 8291, a fresh key and salt per message), signed for with the app's VAPID key (RFC 8292,
/// one token per push-service origin, signed again before it expires), and the answer classified into a
/// `DeliveryOutcome`. An endpoint the policy refuses is never connected to.
public final class WebPushClient: Sendable {
    private let configuration: WebPushConfiguration
    private let vapid: VAPIDKey
    private let transport: any HTTPTransport
    private let clock: any WallClock
    /// The `Authorization` value of each origin, with its `exp` (epoch seconds).
    private let authorizations = Mutex<[String: (value: String, expiresAt: Int)]>([:])
    /// The most origins whose token is kept; past it the cache starts over (each origin signs once more).
    static let maximumCachedOrigins = 10_000

    public init(
        configuration: WebPushConfiguration, vapid: VAPIDKey, transport: any HTTPTransport,
        clock: any WallClock = SystemWallClock()
    ) {
        self.configuration = configuration
        self.vapid = vapid
        self.transport = transport
        self.clock = clock
    }

    /// Sends `request` (the planner's: headers and plaintext body) to the subscription `token`. Never throws:
    /// every failure is an outcome, and no outcome quotes the endpoint or the keys.
    public func send(subscription token: String, request: ProviderRequest) async -> DeliveryOutcome {
        let subscription: WebPushSubscription
        do {
            subscription = try WebPushSubscription(token: token)
        } catch {
            return .rejected(status: nil, reason: "invalid subscription: \(error.message)")
        }
        if let refusal = configuration.policy.refusal(of: subscription) {
            return .rejected(status: nil, reason: "endpoint refused: \(refusal)")
        }
        let body: [UInt8]
        do {
            body = try WebPushEncryption.encrypt(request.body, p256dh: subscription.p256dh, auth: subscription.auth)
        } catch {
            return .rejected(status: nil, reason: "cannot encrypt for the subscription: \(error.message)")
        }
        let authorization: String
        do {
            authorization = try self.authorization(for: subscription.origin)
        } catch {
            return .credentials(status: nil, reason: "cannot sign the VAPID token: \(error.message)")
        }
        let headers =
            request.headers.map { HTTPHeader($0.name, $0.value) } + [HTTPHeader("authorization", authorization)]
        let response: HTTPResponse
        do {
            response = try await transport.send(
                HTTPRequest(
                    method: "POST", url: subscription.endpoint, headers: headers, body: body,
                    deadline: configuration.requestDeadline,
                    publicAddressesOnly: !configuration.policy.allowsPrivateEndpoints))
        } catch let error where error.kind == .addressRefused {
            return .rejected(status: nil, reason: "endpoint refused: its host resolves to no public address")
        } catch {
            return DeliveryOutcome(transportError: error)
        }
        return WebPushResponseClassifier.classify(response, now: clock.now())
    }

    /// `vapid t=<JWT>, k=<public key>` for `origin`: the cached one while more than half its life is left.
    func authorization(for origin: String) throws(SigningError) -> String {
        let now = Int(clamping: clock.nowMillis() / 1000)
        let lifetime = Int(configuration.tokenLifetime.components.seconds)
        if let cached = authorizations.withLock({ $0[origin] }), cached.expiresAt - now > lifetime / 2 {
            return cached.value
        }
        let expiresAt = now + lifetime
        let token = try JSONWebToken.vapid(
            key: vapid.key, audience: origin, expiresAt: expiresAt, subject: vapid.subject)
        let value = "vapid t=\(token), k=\(vapid.publicKey)"
        authorizations.withLock { cache in
            if cache.count >= Self.maximumCachedOrigins { cache.removeAll() }
            cache[origin] = (value, expiresAt)
        }
        return value
    }
}
