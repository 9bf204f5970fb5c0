import Essentials
import Foundation
import HTTPTypes
import PushCore
import Signing
import Synchronization

/// OAuth2 access tokens for a service account (JWT-bearer grant, RFC 7523): fetched by one request at a time
/// however many senders wait (single flight), cached until `refreshAt`: 5 minutes before they expire, or a
/// quarter of their lifetime when it is shorter than 20 minutes, so one token serves sends for most of its
/// lifetime whatever `expires_in` the server sends (one fetch per lifetime, never one per send wave). A send reads the
/// cached token under a lock (`current()`), without entering the actor: only a fetch and its waiters do.
actor GoogleAccessTokens {
    /// An access token and the generation it belongs to.
    struct Token: Sendable {
        let value: String
        var expiresAt: Date
        /// When a new token is fetched instead of this one.
        var refreshAt: Date
        var generation: Int
        /// The `authorization` header's value, `Bearer <token>`: made once a token, not once a request.
        let authorization: String

        init(value: String, expiresAt: Date, refreshAt: Date, generation: Int) {
            self.value = value
            self.expiresAt = expiresAt
            self.refreshAt = refreshAt
            self.generation = generation
            authorization = "Bearer " + value
        }
    }

    /// Why no token could be had, as the outcome a send comes to.
    struct Failure: Error {
        var outcome: DeliveryOutcome
    }

    static let scope = "https://www.googleapis.com/auth/firebase.messaging"
    /// How long before its expiry a token is renewed, at most.
    static let refreshMargin: TimeInterval = 5 * 60

    private let account: GoogleServiceAccount
    private let transport: any HTTPTransport
    private let clock: any WallClock
    private let deadline: Duration
    /// The last token fetched, until FCM refuses it; read by every send without entering the actor.
    private let cached = Mutex<Token?>(nil)
    private var inFlight: Task<Result<Token, Failure>, Never>?
    private var generation = 0
    /// How many token requests were sent (for metrics and tests).
    private(set) var requestsSent = 0

    init(account: GoogleServiceAccount, transport: any HTTPTransport, clock: any WallClock, deadline: Duration) {
        self.account = account
        self.transport = transport
        self.clock = clock
        self.deadline = deadline
    }

    /// The cached token until its `refreshAt`, else a new one; concurrent callers share one fetch. A cached token is
    /// returned without a hop onto the actor and back.
    nonisolated func current() async throws(Failure) -> Token {
        if let fresh { return fresh }
        return try await fetched()
    }

    /// The cached token while it is fresh (before its `refreshAt`); `nil` when a new one is due.
    nonisolated var fresh: Token? {
        let now = clock.now()
        return cached.withLock { cached in cached.flatMap { now < $0.refreshAt ? $0 : nil } }
    }

    /// A fresh token (another caller may have fetched one meanwhile), else the one fetch under way or a new one.
    private func fetched() async throws(Failure) -> Token {
        if let fresh { return fresh }
        if let inFlight {
            return try await inFlight.value.get()
        }
        let fetch = Task { await self.fetch() }
        inFlight = fetch
        let result = await fetch.value
        inFlight = nil
        if case .success(let token) = result { cached.withLock { $0 = token } }
        return try result.get()
    }

    /// Drops the token of `generation` after FCM refused it, so the next `current()` fetches a new one.
    nonisolated func invalidate(generation rejected: Int) {
        cached.withLock { cached in
            if cached?.generation == rejected { cached = nil }
        }
    }

    private func fetch() async -> Result<Token, Failure> {
        requestsSent += 1
        let now = clock.now()
        let assertion: String
        do {
            assertion = try JSONWebToken.googleAssertion(
                key: account.key, keyId: account.privateKeyId, issuer: account.clientEmail, scope: Self.scope,
                audience: account.tokenURI, issuedAt: Int(now.timeIntervalSince1970))
        } catch {
            return .failure(Failure(outcome: .credentials(status: nil, reason: "cannot sign the OAuth assertion")))
        }
        let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)"
        let request = HTTPRequest(
            method: "POST", url: account.tokenURI,
            headers: [HTTPHeader("content-type", "application/x-www-form-urlencoded")],
            body: Array(form.utf8), deadline: deadline)
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch {
            return .failure(Failure(outcome: DeliveryOutcome(transportError: error)))
        }
        return Self.token(from: response, now: now, generation: generation + 1).map { token in
            generation = token.generation
            return token
        }
    }

    /// The longest lifetime taken from `expires_in` (Google's tokens live an hour); a hostile `1e300` is cut to
    /// this, so the token is still renewed daily.
    static let maximumLifetime: TimeInterval = 86_400
    /// The lifetime of a token whose `expires_in` is missing, zero, negative or shorter than this: it is used for
    /// this long (FCM's 401 on a token that did expire makes the next send fetch a new one), never refetched per
    /// send.
    static let minimumLifetime: TimeInterval = 60

    /// The token's lifetime from `expiresIn` (seconds, as the server sent it), within the two bounds.
    static func lifetime(expiresIn: Double?) -> TimeInterval {
        guard let expiresIn, expiresIn.isFinite else {
            return expiresIn == .infinity ? maximumLifetime : minimumLifetime
        }
        return min(max(expiresIn, minimumLifetime), maximumLifetime)
    }

    /// When a token of `lifetime` issued at `now` is renewed: `refreshMargin` before it expires, or after three
    /// quarters of its lifetime when that comes later.
    static func refreshTime(now: Date, lifetime: TimeInterval) -> Date {
        now.addingTimeInterval(max(lifetime - refreshMargin, lifetime * 0.75))
    }

    private struct TokenResponse: Decodable {
        var accessToken: String
        var expiresIn: Double?

        private enum CodingKeys: String, CodingKey {
            case accessToken, expiresIn
        }

        /// `expires_in` as a number or, as some servers send it, a numeric string.
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            accessToken = try container.decode(String.self, forKey: .accessToken)
            expiresIn =
                (try? container.decodeIfPresent(Double.self, forKey: .expiresIn))
                ?? (try? container.decodeIfPresent(String.self, forKey: .expiresIn)).flatMap { Double($0) }
        }
    }

    /// Reads the token endpoint's answer: 200 with `access_token` and `expires_in`; 5xx and 429 are transient,
    /// anything else (`invalid_grant`, `invalid_client`, …) a credentials failure.
    static func token(from response: HTTPResponse, now: Date, generation: Int) -> Result<Token, Failure> {
        let reason = "OAuth token endpoint answered HTTP \(response.status)"
        switch response.status {
        case 200:
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            guard let body = try? decoder.decode(TokenResponse.self, from: Data(response.body)),
                !body.accessToken.isEmpty
            else {
                return .failure(Failure(outcome: .credentials(status: 200, reason: "OAuth token response unreadable")))
            }
            let lifetime = lifetime(expiresIn: body.expiresIn)
            return .success(
                Token(
                    value: body.accessToken, expiresAt: now.addingTimeInterval(lifetime),
                    refreshAt: refreshTime(now: now, lifetime: lifetime), generation: generation))
        case 408, 429, 500...599:
            let retryAfter = response.header(ProviderResponseHeader.retryAfter).flatMap {
                RetryAfter.parse($0, now: now)
            }
            return .failure(Failure(outcome: .retry(status: response.status, reason: reason, after: retryAfter)))
        default:
            return .failure(Failure(outcome: .credentials(status: response.status, reason: reason)))
        }
    }
}
