import Foundation
import IntegrationSupport
import TestSupport
import Testing

@testable import Signing

/// Our ES256 tokens and RS256 assertions, checked by an implementation independent of ours (Python's
/// `cryptography`).
@Suite struct JWTVerificationTests {
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

    @Test func googleAssertionHasTheGrantClaimsAndVerifies() throws {
        let pem = try TestKeys.rsa.get()
        let key = try RS256Key(pem: pem)
        let jwt = try JSONWebToken.googleAssertion(
            key: key, keyId: "k1", issuer: "sa@p.iam.gserviceaccount.com", scope: "s", audience: "https://t/token",
            issuedAt: 100)
        let parts = jwt.split(separator: ".").map(String.init)
        #expect(JWTSegment.text(parts[0]) == #"{"alg":"RS256","kid":"k1","typ":"JWT"}"#)
        #expect(
            JWTSegment.text(parts[1])
                == #"{"aud":"https://t/token","exp":3700,"iat":100,"iss":"sa@p.iam.gserviceaccount.com","scope":"s"}"#)
        #expect(try JWTChecks.pythonVerifies(jwt: jwt, pem: pem))
    }
}
