import Foundation
import HTTPTypes
import PushCore
import TestSupport
import Testing

@testable import Providers

@Suite struct OAuthTokenAnswerTests {
    @Test func aHostileLifetimeIsCutToADay() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let response = HTTPResponse.json(200, #"{"access_token":"t","expires_in":1e300,"token_type":"Bearer"}"#)
        let token = try GoogleAccessTokens.token(from: response, now: now, generation: 1).get()
        #expect(token.expiresAt == now.addingTimeInterval(86_400))
    }
}

/// The OAuth cache under every lifetime a token endpoint may send: one fetch per lifetime, never one per send.
@Suite struct OAuthTokenLifetimeTests {
    @Test(arguments: [
        (3600.0, 3300.0), (1200.0, 900.0), (300.0, 225.0), (10.0, 45.0), (0.0, 45.0), (-5.0, 45.0), (1e300, 86_100.0),
    ])
    func aTokenIsRenewedAtAFractionOfItsLifetime(expiresIn: Double, renewedAfter: Double) {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let lifetime = GoogleAccessTokens.lifetime(expiresIn: expiresIn)
        #expect(GoogleAccessTokens.refreshTime(now: now, lifetime: lifetime) == now.addingTimeInterval(renewedAfter))
    }

    @Test(arguments: [#""expires_in":0,"#, #""expires_in":-1,"#, "", #""expires_in":"300","#])
    func aMissingZeroNegativeOrTextualLifetimeStillGivesAToken(field: String) throws {
        let response = HTTPResponse.json(200, #"{"access_token":"t",\#(field)"token_type":"Bearer"}"#)
        let token = try GoogleAccessTokens.token(from: response, now: Date(timeIntervalSince1970: 0), generation: 1)
            .get()
        #expect(token.value == "t")
        #expect(token.expiresAt.timeIntervalSince1970 >= GoogleAccessTokens.minimumLifetime)
    }

    /// `expires_in: 300` made the cache (which wanted 5 minutes of life left) fetch a token before every send.
    @Test(arguments: [300, 0])
    func sendsOnceASecondForFiveMinutesFetchATokenOncePerLifetime(expiresIn: Int) async throws {
        let tokenRequests = Shared(0)
        let transport = ScriptedTransport { request in
            guard request.url == FCMClientTests.tokenURI else { return .json(200, #"{"name":"n"}"#) }
            let count = tokenRequests.increment()
            return .json(200, #"{"access_token":"access-\#(count)","expires_in":\#(expiresIn)}"#)
        }
        let clock = ManualClock()
        let fcm = try FCMClientTests().client(transport, clock: clock)
        for _ in 0..<300 {
            #expect(await fcm.send(body: []) == .delivered(providerMessageId: "n"))
            clock.advance(by: .seconds(1))
        }
        let lifetime = GoogleAccessTokens.lifetime(expiresIn: Double(expiresIn))
        let perLifetime = Int((300 / (lifetime * 0.75)).rounded(.up))
        #expect(tokenRequests.value == perLifetime)
    }
}

/// The token cache that sends read without entering the actor.
@Suite struct AccessTokenCacheTests {
    func tokens(clock: ManualClock, tokenRequests: Shared<Int>) throws -> GoogleAccessTokens {
        let account = try GoogleServiceAccount(json: try TestKeys.serviceAccountJSON(tokenURI: FCMClientTests.tokenURI))
        let transport = FCMClientTests.fakeGoogle(tokenRequests: tokenRequests) { _ in .json(200, #"{"name":"n"}"#) }
        return GoogleAccessTokens(account: account, transport: transport, clock: clock, deadline: .seconds(10))
    }

    @Test func aFetchedTokenIsReadWithoutEnteringTheActorUntilItsRefreshTime() async throws {
        let clock = ManualClock()
        let tokenRequests = Shared(0)
        let tokens = try tokens(clock: clock, tokenRequests: tokenRequests)
        #expect(tokens.fresh == nil)
        let fetched = try await tokens.current()
        #expect(tokens.fresh?.value == fetched.value)
        #expect(try await tokens.current().value == fetched.value)
        #expect(tokenRequests.value == 1)
        clock.advance(by: .seconds(55 * 60))
        #expect(tokens.fresh == nil)
        #expect(try await tokens.current().value == "access-2")
        #expect(tokenRequests.value == 2)
    }

    @Test func anInvalidatedTokenIsNoLongerReadButALaterOneIsKept() async throws {
        let tokenRequests = Shared(0)
        let tokens = try tokens(clock: ManualClock(), tokenRequests: tokenRequests)
        let first = try await tokens.current()
        tokens.invalidate(generation: first.generation)
        #expect(tokens.fresh == nil)
        let second = try await tokens.current()
        #expect(second.value == "access-2")
        tokens.invalidate(generation: first.generation)
        #expect(tokens.fresh?.value == "access-2")
    }
}
