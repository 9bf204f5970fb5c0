import Foundation
import HTTP2
import HTTPTypes
import PushCore
import TestSupport
import Testing

@testable import Providers

/// The clients against a scripted transport: auth caching, renewal and request shape.
@Suite struct APNsClientTests {
    static let token = String(repeating: "ab", count: 32)
    static let accepted: ScriptedTransport.Answer = { _ in
        HTTPResponse(status: 200, headers: [HTTPHeader("apns-id", "id-1")])
    }

    func client(_ transport: ScriptedTransport, clock: ManualClock) throws -> APNsClient {
        let key = try APNsSigningKey(pem: try TestKeys.p256.get(), keyId: "KEYID12345", teamId: "TEAMID1234")
        return APNsClient(
            configuration: APNsConfiguration(
                authentication: .token(key), productionURL: "https://prod.test", sandboxURL: "https://sandbox.test"),
            transport: transport, clock: clock)
    }

    @Test func sendsToTheHostOfTheTokensEnvironmentWithTheBuiltHeaders() async throws {
        let transport = ScriptedTransport(Self.accepted)
        let apns = try client(transport, clock: ManualClock())
        let headers = [HTTPHeader("apns-push-type", "alert"), HTTPHeader("apns-topic", "com.example.chat")]
        #expect(
            await apns.send(deviceToken: Self.token, sandbox: false, headers: headers, body: Array("{}".utf8))
                == .delivered(providerMessageId: "id-1"))
        _ = await apns.send(deviceToken: Self.token, sandbox: true, headers: headers, body: [])
        let requests = transport.requests
        #expect(
            requests.map(\.url) == [
                "https://prod.test/3/device/\(Self.token)", "https://sandbox.test/3/device/\(Self.token)",
            ])
        #expect(requests[0].method == "POST")
        #expect(requests[0].header("apns-topic") == "com.example.chat")
        #expect(requests[0].header("authorization")?.hasPrefix("bearer ey") == true)
        #expect(requests.allSatisfy { $0.oneStreamUntilOriginSucceeds }, "APNs token auth: one stream until a success")
    }

    @Test func clientsOfOneKeyWithSharedSignersSendOneProviderTokenAndOthersEachTheirOwn() async throws {
        let transport = ScriptedTransport(Self.accepted)
        let clock = ManualClock()
        let pem = try TestKeys.p256.get()
        let key = try APNsSigningKey(pem: pem, keyId: "KEYID12345", teamId: "TEAMID1234")
        let other = try APNsSigningKey(pem: pem, keyId: "KEYID67890", teamId: "TEAMID1234")
        let signers = APNsTokenSigners()
        func client(_ key: APNsSigningKey, signers: APNsTokenSigners?) -> APNsClient {
            APNsClient(
                configuration: APNsConfiguration(
                    authentication: .token(key), productionURL: "https://prod.test", sandboxURL: "https://sandbox.test"),
                transport: transport, clock: clock, signers: signers)
        }
        let clients = [client(key, signers: signers), client(key, signers: signers), client(other, signers: signers)]
        for apns in clients { _ = await apns.send(deviceToken: Self.token, sandbox: false, headers: [], body: []) }
        #expect(clients.map(\.providerTokensIssued) == [1, 1, 1])
        let tokens = transport.requests.compactMap { $0.header("authorization") }
        #expect(tokens[0] == tokens[1])
        #expect(tokens[2] != tokens[0])
        // A renewal through one client is the other's token too.
        clock.advance(by: .seconds(51 * 60))
        _ = await clients[0].send(deviceToken: Self.token, sandbox: false, headers: [], body: [])
        #expect(clients.map(\.providerTokensIssued) == [2, 2, 1])
        #expect(client(key, signers: nil).providerTokensIssued == 0)
    }

    @Test func oneTokenServesManyRequestsAndIsRenewedAfterFiftyMinutes() async throws {
        let transport = ScriptedTransport(Self.accepted)
        let clock = ManualClock()
        let apns = try client(transport, clock: clock)
        for _ in 0..<100 { _ = await apns.send(deviceToken: Self.token, sandbox: false, headers: [], body: []) }
        clock.advance(by: .seconds(49 * 60))
        _ = await apns.send(deviceToken: Self.token, sandbox: false, headers: [], body: [])
        #expect(apns.providerTokensIssued == 1)
        clock.advance(by: .seconds(60))
        _ = await apns.send(deviceToken: Self.token, sandbox: false, headers: [], body: [])
        #expect(apns.providerTokensIssued == 2)
        #expect(Set(transport.requests.compactMap { $0.header("authorization") }).count == 2)
    }

    @Test func expiredProviderTokenRenewsOnceAndResends() async throws {
        let calls = Shared(0)
        let transport = ScriptedTransport { _ in
            if calls.increment() == 1 {
                return .json(403, #"{"reason":"ExpiredProviderToken"}"#)
            }
            return HTTPResponse(status: 200, headers: [HTTPHeader("apns-id", "id-2")])
        }
        let apns = try client(transport, clock: ManualClock())
        #expect(
            await apns.send(deviceToken: Self.token, sandbox: false, headers: [], body: [])
                == .delivered(providerMessageId: "id-2"))
        #expect(apns.providerTokensIssued == 2)
        let authorizations = transport.requests.compactMap { $0.header("authorization") }
        #expect(authorizations.count == 2 && authorizations[0] != authorizations[1])
    }

    @Test func expiredProviderTokenRenewsAtMostOncePerTwentyMinutes() async throws {
        let transport = ScriptedTransport { _ in .json(403, #"{"reason":"ExpiredProviderToken"}"#) }
        let clock = ManualClock()
        let apns = try client(transport, clock: clock)
        #expect(
            await apns.send(deviceToken: Self.token, sandbox: false, headers: [], body: [])
                == .credentials(status: 403, reason: "ExpiredProviderToken"))
        #expect(apns.providerTokensIssued == 2)
        clock.advance(by: .seconds(19 * 60))
        for _ in 0..<5 { _ = await apns.send(deviceToken: Self.token, sandbox: false, headers: [], body: []) }
        #expect(apns.providerTokensIssued == 2)
        clock.advance(by: .seconds(60))
        _ = await apns.send(deviceToken: Self.token, sandbox: false, headers: [], body: [])
        #expect(apns.providerTokensIssued == 3)
    }

    @Test func tooManyProviderTokenUpdatesNeverRenews() async throws {
        let transport = ScriptedTransport { _ in .json(429, #"{"reason":"TooManyProviderTokenUpdates"}"#) }
        let apns = try client(transport, clock: ManualClock())
        #expect(
            await apns.send(deviceToken: Self.token, sandbox: false, headers: [], body: [])
                == .retry(status: 429, reason: "TooManyProviderTokenUpdates", after: nil))
        #expect(apns.providerTokensIssued == 1)
        #expect(transport.requests.count == 1)
    }

    @Test(arguments: ["", "zz", "ab/../../x", String(repeating: "a", count: 201)])
    func malformedDeviceTokensNeverReachTheTransport(deviceToken: String) async throws {
        let transport = ScriptedTransport(Self.accepted)
        let apns = try client(transport, clock: ManualClock())
        #expect(
            await apns.send(deviceToken: deviceToken, sandbox: false, headers: [], body: [])
                == .invalidToken(status: nil, reason: "BadDeviceToken", invalidSinceMillis: nil))
        #expect(transport.requests.isEmpty)
    }

    @Test func certificateAuthSendsNoAuthorizationHeader() async {
        let transport = ScriptedTransport(Self.accepted)
        let apns = APNsClient(
            configuration: APNsConfiguration(
                authentication: .certificate, productionURL: "https://prod.test", sandboxURL: "https://sandbox.test"),
            transport: transport)
        _ = await apns.send(deviceToken: Self.token, sandbox: false, headers: [], body: [])
        #expect(transport.requests.first?.header("authorization") == nil)
        #expect(transport.requests.first?.oneStreamUntilOriginSucceeds == false, "the rule is token auth's only")
        #expect(transport.requests.first?.url == "https://prod.test/3/device/\(Self.token)")
    }

    @Test func transportErrorsBecomeOutcomesWithoutTheDeviceToken() async throws {
        let transport = ScriptedTransport { _ throws(HTTPError) in throw HTTPError(.timeout, "deadline passed") }
        let apns = try client(transport, clock: ManualClock())
        let outcome = await apns.send(deviceToken: Self.token, sandbox: false, headers: [], body: [])
        #expect(outcome == .retry(status: nil, reason: "transport: timeout", after: nil))
        #expect(!"\(outcome)".contains(Self.token))
    }

    @Test func badKeysAreConfigurationErrorsNamingTheVariable() throws {
        let rsa = try TestKeys.rsa.get()
        let wrongKind = #expect(throws: ProviderConfigurationError.self) {
            try APNsSigningKey(pem: rsa, keyId: "K", teamId: "T")
        }
        #expect(wrongKind?.field == "APNS_KEY_FILE")
        let unreadable = #expect(throws: ProviderConfigurationError.self) {
            try APNsSigningKey(
                pem: "-----BEGIN PRIVATE KEY-----\nsecret\n-----END PRIVATE KEY-----", keyId: "K", teamId: "T")
        }
        #expect(unreadable?.field == "APNS_KEY_FILE")
        #expect(unreadable.map { !$0.description.contains("secret") } == true)
    }
}

@Suite struct FCMClientTests {
    static let tokenURI = "https://oauth.test/token"

    func client(_ transport: ScriptedTransport, clock: ManualClock = ManualClock()) throws -> FCMClient {
        let account = try GoogleServiceAccount(json: try TestKeys.serviceAccountJSON(tokenURI: Self.tokenURI))
        return FCMClient(
            configuration: FCMConfiguration(baseURL: "https://fcm.test"), serviceAccount: account,
            transport: transport, clock: clock)
    }

    /// An OAuth endpoint issuing `access-N` tokens valid for an hour, and an FCM endpoint answering `send`.
    static func fakeGoogle(
        tokenRequests: Shared<Int>, send: @escaping @Sendable (HTTPRequest) -> HTTPResponse
    ) -> ScriptedTransport {
        ScriptedTransport { request in
            guard request.url == tokenURI else { return send(request) }
            let count = tokenRequests.increment()
            // The other sends run while this request is still unanswered.
            for _ in 0..<100 { await Task.yield() }
            return .json(200, #"{"access_token":"access-\#(count)","expires_in":3600,"token_type":"Bearer"}"#)
        }
    }

    @Test func concurrentSendsShareOneTokenRequest() async throws {
        let tokenRequests = Shared(0)
        let transport = Self.fakeGoogle(tokenRequests: tokenRequests) { _ in
            .json(200, #"{"name":"projects/demo-project/messages/1"}"#)
        }
        let fcm = try client(transport)
        let outcomes = await withTaskGroup(of: DeliveryOutcome.self) { group in
            for _ in 0..<500 { group.addTask { await fcm.send(body: Array(#"{"message":{}}"#.utf8)) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.count == 500)
        #expect(outcomes.allSatisfy { $0 == .delivered(providerMessageId: "projects/demo-project/messages/1") })
        #expect(tokenRequests.value == 1)
        #expect(await fcm.tokenRequestsSent == 1)
        #expect(transport.requests.allSatisfy { !$0.oneStreamUntilOriginSucceeds }, "FCM gets its streams at once")
    }

    @Test func tokenRequestIsAJWTBearerGrantWithAnRS256Assertion() async throws {
        let transport = Self.fakeGoogle(tokenRequests: Shared(0)) { _ in .json(200, #"{"name":"n"}"#) }
        _ = try await client(transport).send(body: [])
        let tokenRequest = try #require(transport.requests.first)
        #expect(tokenRequest.method == "POST" && tokenRequest.url == Self.tokenURI)
        #expect(tokenRequest.header("content-type") == "application/x-www-form-urlencoded")
        let form = String(decoding: tokenRequest.body, as: UTF8.self)
        #expect(form.hasPrefix("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=ey"))
        let send = try #require(transport.requests.last)
        #expect(send.url == "https://fcm.test/v1/projects/demo-project/messages:send")
        #expect(send.header("authorization") == "Bearer access-1")
    }

    @Test func tokenIsCachedUntilFiveMinutesBeforeExpiry() async throws {
        let tokenRequests = Shared(0)
        let clock = ManualClock()
        let fcm = try client(
            Self.fakeGoogle(tokenRequests: tokenRequests) { _ in .json(200, #"{"name":"n"}"#) }, clock: clock)
        _ = await fcm.send(body: [])
        clock.advance(by: .seconds(54 * 60))
        _ = await fcm.send(body: [])
        #expect(tokenRequests.value == 1)
        clock.advance(by: .seconds(60))
        _ = await fcm.send(body: [])
        #expect(tokenRequests.value == 2)
    }

    @Test func unauthorizedRefreshesOnceThenSucceeds() async throws {
        let tokenRequests = Shared(0)
        let transport = Self.fakeGoogle(tokenRequests: tokenRequests) { request in
            request.header("authorization") == "Bearer access-1"
                ? .json(401, #"{"error":{"code":401,"status":"UNAUTHENTICATED"}}"#)
                : .json(200, #"{"name":"projects/demo-project/messages/2"}"#)
        }
        let fcm = try client(transport)
        #expect(await fcm.send(body: []) == .delivered(providerMessageId: "projects/demo-project/messages/2"))
        #expect(tokenRequests.value == 2)
    }

    @Test func unauthorizedTwiceIsACredentialsFailure() async throws {
        let tokenRequests = Shared(0)
        let transport = Self.fakeGoogle(tokenRequests: tokenRequests) { _ in
            .json(401, #"{"error":{"code":401,"status":"UNAUTHENTICATED"}}"#)
        }
        #expect(try await client(transport).send(body: []) == .credentials(status: 401, reason: "UNAUTHENTICATED"))
        #expect(tokenRequests.value == 2)
    }

    @Test(arguments: [
        (400, "credentials"), (401, "credentials"), (500, "retry"), (503, "retry"), (200, "credentials"),
    ])
    func tokenEndpointFailuresBecomeOutcomes(status: Int, expected: String) async throws {
        let transport = ScriptedTransport { request in
            request.url == Self.tokenURI ? .json(status, #"{"error":"invalid_grant"}"#) : .json(200, #"{"name":"n"}"#)
        }
        #expect(try await client(transport).send(body: []).className == expected)
    }

    @Test(arguments: [
        ("{}", "client_email"), (#"{"client_email":"a","token_uri":"t","project_id":"p"}"#, "private_key"),
        (#"{"client_email":"a","token_uri":"t","project_id":"P/../x","private_key":"k"}"#, "project_id"),
        ("[", "FCM_SERVICE_ACCOUNT_FILE"),
    ])
    func serviceAccountErrorsNameTheField(json: String, field: String) {
        let error = #expect(throws: ProviderConfigurationError.self) {
            try GoogleServiceAccount(json: Array(json.utf8))
        }
        #expect(error?.field == field)
    }
}
