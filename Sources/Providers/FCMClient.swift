public import Essentials
import Foundation
public import HTTPTypes
public import PushCore
import Synchronization

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
        await send(body: body, refreshed: false)
    }

    /// Sends every message at the same time, through one `HTTPTransport.sendAll` under the cached access token, and
    /// answers each with its index and outcome as it arrives (from any thread), exactly as `send` would; returns once
    /// every one was answered. Without a fresh cached token, each goes through `send`, which fetches one (once for
    /// all). A message refused with 401 is sent again alone under a new token, as `send` does.
    public func sendAll(_ bodies: [[UInt8]], answer: @escaping @Sendable (Int, DeliveryOutcome) -> Void) async {
        guard let token = tokens.fresh else {
            return await concurrently(bodies.count) { [self] index in answer(index, await send(body: bodies[index])) }
        }
        let refused = Mutex<[Int]>([])
        await transport.sendAll(bodies.map { request($0, token: token) }) { [self] index, result in
            switch verdict(on: result, token: token, refreshed: false) {
            case .outcome(let outcome): answer(index, outcome)
            case .sendAgain: refused.withLock { $0.append(index) }
            }
        }
        let again = refused.withLock { $0 }
        await concurrently(again.count) { [self] slot in
            answer(again[slot], await send(body: bodies[again[slot]], refreshed: true))
        }
    }

    /// Sends `body`, once more under a new access token after a 401 unless `refreshed` already.
    private func send(body: [UInt8], refreshed: Bool) async -> DeliveryOutcome {
        var refreshed = refreshed
        while true {
            let token: GoogleAccessTokens.Token
            do {
                token = try await tokens.current()
            } catch {
                return error.outcome
            }
            let result = await transport.result(of: request(body, token: token))
            switch verdict(on: result, token: token, refreshed: refreshed) {
            case .outcome(let outcome): return outcome
            case .sendAgain: refreshed = true
            }
        }
    }

    /// What an answer comes to: an outcome, or another attempt under a new access token.
    private enum Verdict {
        case outcome(DeliveryOutcome)
        case sendAgain
    }

    /// The send request of `body` under `token`.
    private func request(_ body: [UInt8], token: GoogleAccessTokens.Token) -> HTTPRequest {
        HTTPRequest(
            method: "POST", url: sendURL,
            headers: [
                HTTPHeader("authorization", token.authorization),
                HTTPHeader("content-type", "application/json; charset=UTF-8"),
            ],
            body: body, deadline: configuration.requestDeadline)
    }

    /// The outcome of an answer to a request under `token`; `.sendAgain` once, when FCM refused the token (which is
    /// dropped, so the next `current()` fetches another).
    private func verdict(
        on result: Result<HTTPResponse, HTTPError>, token: GoogleAccessTokens.Token, refreshed: Bool
    ) -> Verdict {
        let response: HTTPResponse
        switch result {
        case .success(let answer): response = answer
        case .failure(let error): return .outcome(DeliveryOutcome(transportError: error))
        }
        let (outcome, action) = FCMResponseClassifier.classify(response, now: clock.now())
        guard action == .credentials(renewable: true), !refreshed else { return .outcome(outcome) }
        tokens.invalidate(generation: token.generation)
        return .sendAgain
    }
}
