public import Essentials
import Foundation
public import HTTPTypes
public import PushCore
import Signing
import Synchronization

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

/// One notification of `APNsClient.sendAll`: the device token, its environment, and the `apns-*` headers and JSON
/// payload, already built.
public struct APNsNotification: Sendable {
    public var deviceToken: String
    public var sandbox: Bool
    public var headers: [HTTPHeader]
    public var body: [UInt8]

    public init(deviceToken: String, sandbox: Bool, headers: [HTTPHeader], body: [UInt8]) {
        self.deviceToken = deviceToken
        self.sandbox = sandbox
        self.headers = headers
        self.body = body
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
        await send(APNsNotification(deviceToken: deviceToken, sandbox: sandbox, headers: headers, body: body))
    }

    /// Sends every notification at the same time, through one `HTTPTransport.sendAll`, and answers each with its
    /// index and outcome as it arrives (from any thread), exactly as `send` would; returns once every one was
    /// answered. A notification whose answer asks for a renewed provider token is sent again alone, as `send` does.
    public func sendAll(
        _ notifications: [APNsNotification], answer: @escaping @Sendable (Int, DeliveryOutcome) -> Void
    ) async {
        var attempts: [(index: Int, attempt: Attempt)] = []
        attempts.reserveCapacity(notifications.count)
        for (index, notification) in notifications.enumerated() {
            switch attempt(notification, renewed: false) {
            case .success(let attempt): attempts.append((index, attempt))
            case .failure(let refusal): answer(index, refusal.outcome)
            }
        }
        let renewed = Mutex<[Int]>([])
        await transport.sendAll(attempts.map(\.attempt.request)) { [self, attempts] slot, result in
            let (index, attempt) = attempts[slot]
            switch verdict(on: result, of: attempt) {
            case .outcome(let outcome): answer(index, outcome)
            case .sendAgain: renewed.withLock { $0.append(index) }
            }
        }
        let again = renewed.withLock { $0 }
        await concurrently(again.count) { [self] slot in
            answer(again[slot], await send(notifications[again[slot]], renewed: true))
        }
    }

    /// Sends `notification`, once more after a renewed provider token (on a new connection) unless `renewed`
    /// already.
    private func send(_ notification: APNsNotification, renewed: Bool = false) async -> DeliveryOutcome {
        var renewed = renewed
        while true {
            let attempt: Attempt
            switch self.attempt(notification, renewed: renewed) {
            case .success(let made): attempt = made
            case .failure(let refusal): return refusal.outcome
            }
            switch verdict(on: await transport.result(of: attempt.request), of: attempt) {
            case .outcome(let outcome): return outcome
            case .sendAgain: renewed = true
            }
        }
    }

    /// One request for `notification` and the provider token generation it carries.
    private struct Attempt: Sendable {
        var request: HTTPRequest
        var generation: Int?
        var renewed: Bool
        var sentID: String?
    }

    /// Why a notification was not sent, as its outcome.
    private struct Refusal: Error {
        var outcome: DeliveryOutcome
    }

    /// What an answer comes to: an outcome, or another attempt under a renewed provider token.
    private enum Verdict {
        case outcome(DeliveryOutcome)
        case sendAgain
    }

    /// The request for `notification` with the current provider token; the outcome instead when the device token
    /// is malformed or no provider token can be signed. `renewed` asks for a new connection.
    private func attempt(_ notification: APNsNotification, renewed: Bool) -> Result<Attempt, Refusal> {
        guard Self.isWellFormed(notification.deviceToken) else {
            return .failure(
                Refusal(outcome: .invalidToken(status: nil, reason: "BadDeviceToken", invalidSinceMillis: nil)))
        }
        let base = notification.sandbox ? configuration.sandboxURL : configuration.productionURL
        var request = HTTPRequest(
            method: "POST", url: "\(base)/3/device/\(notification.deviceToken)", headers: notification.headers,
            body: notification.body, deadline: configuration.requestDeadline, freshConnection: renewed)
        var generation: Int?
        if let tokens {
            do {
                let token = try tokens.current()
                generation = token.generation
                request.headers.append(HTTPHeader("authorization", token.authorization))
                request.oneStreamUntilOriginSucceeds = true
            } catch {
                return .failure(
                    Refusal(
                        outcome: .credentials(status: nil, reason: "cannot sign a provider token: \(error.message)")))
            }
        }
        let sentID = notification.headers.first { $0.hasName("apns-id") }?.value
        return .success(Attempt(request: request, generation: generation, renewed: renewed, sentID: sentID))
    }

    /// The outcome of `attempt`'s answer; `.sendAgain` once, when APNs called the provider token expired and a
    /// renewed one is there.
    private func verdict(on result: Result<HTTPResponse, HTTPError>, of attempt: Attempt) -> Verdict {
        let response: HTTPResponse
        switch result {
        case .success(let answer): response = answer
        case .failure(let error): return .outcome(DeliveryOutcome(transportError: error))
        }
        let (outcome, action) = APNsResponseClassifier.classify(response, sentID: attempt.sentID, now: clock.now())
        guard action == .credentials(renewable: true), !attempt.renewed, let tokens,
            let generation = attempt.generation,
            (try? tokens.renew(afterExpiryOf: generation)) == true
        else { return .outcome(outcome) }
        return .sendAgain
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
