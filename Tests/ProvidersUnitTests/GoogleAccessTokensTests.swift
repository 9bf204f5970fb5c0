import Foundation
import HTTPTypes
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
