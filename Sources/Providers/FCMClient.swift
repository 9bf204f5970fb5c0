public import Essentials
import Foundation
public import HTTPTypes
public import PushCore

/// Where the FCM client sends.
public struct FCMConfiguration: Sendable {
    /// Base URL of the FCM HTTP v1 API (`FCM_URL`).
    public var baseURL: String
    /// The longest one send may take, queueing included.
    public var requestDeadline: Duration
    /// The longest one OAuth token request may take.
    public var tokenDeadline: Duration

    public init(baseURL: String, requestDeadline: Duration = .seconds(10), tokenDeadline: Duration = .seconds(10)) {
        self.baseURL = baseURL
        self.requestDeadline = requestDeadline
        self.tokenDeadline = tokenDeadline
    }
}

/// Sends messages through the FCM HTTP v1 API with a service account's OAuth2 access token, and classifies every
/// answer into a `DeliveryOutcome`.
public final class FCMClient: Sendable {
    private let configuration: FCMConfiguration
    private let transport: any HTTPTransport
    private let clock: any WallClock
    private let tokens: GoogleAccessTokens
    private let sendURL: String

    /// A client for `account`'s project over `transport` (also used for the token endpoint, `account.tokenURI`).
    public init(
        configuration: FCMConfiguration, serviceAccount account: GoogleServiceAccount, transport: any HTTPTransport,
        clock: any WallClock = SystemWallClock()
    ) {
        self.configuration = configuration
        self.transport = transport
        self.clock = clock
        tokens = GoogleAccessTokens(
            account: account, transport: transport, clock: clock, deadline: configuration.tokenDeadline)
        sendURL = "\(configuration.baseURL)/v1/projects/\(account.projectId)/messages:send"
    }

    /// How many OAuth token requests this client has sent (for metrics and tests).
    public var tokenRequestsSent: Int {
        get async { await tokens.requestsSent }
    }

    /// Sends one message; `body` is the JSON `{"message": {...}}` already built. Never throws: every failure is an
    /// outcome. A 401 drops the access token and resends once with a fresh one.
    public func send(body: [UInt8]) async -> DeliveryOutcome {
        var refreshed = false
        while true {
            let token: GoogleAccessTokens.Token
            do {
                token = try await tokens.current()
            } catch {
                return error.outcome
            }
            let request = HTTPRequest(
                method: "POST", url: sendURL,
                headers: [
                    HTTPHeader("authorization", "Bearer \(token.value)"),
                    HTTPHeader("content-type", "application/json; charset=UTF-8"),
                ],
                body: body, deadline: configuration.requestDeadline)
            let response: HTTPResponse
            do {
                response = try await transport.send(request)
            } catch {
                return DeliveryOutcome(transportError: error)
            }
            let (outcome, action) = FCMResponseClassifier.classify(response, now: clock.now())
            guard action == .credentials(renewable: true), !refreshed else { return outcome }
            tokens.invalidate(generation: token.generation)
            refreshed = true
        }
    }
}
