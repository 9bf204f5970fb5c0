import Foundation
import IntegrationSupport
import TestSupport
import Testing

@testable import Signing

/// ES256 tokens checked by an implementation independent of ours (Python's `cryptography`).
@Suite struct ES256VerificationTests {
    @Test func apnsProviderTokenHasAppleHeaderAndClaimsAndVerifies() throws {
        let pem = try TestKeys.p256.get()
        let key = try ES256Key(pem: pem)
        let jwt = try JSONWebToken.apnsProviderToken(
            key: key, keyId: "ABC123DEFG", teamId: "DEF123GHIJ", issuedAt: 1_700_000_000)
        let parts = jwt.split(separator: ".").map(String.init)
        #expect(parts.count == 3)
        #expect(JWTSegment.text(parts[0]) == #"{"alg":"ES256","kid":"ABC123DEFG"}"#)
        #expect(JWTSegment.text(parts[1]) == #"{"iat":1700000000,"iss":"DEF123GHIJ"}"#)
        #expect(try JWTChecks.pythonVerifies(jwt: jwt, pem: pem))
    }
}
