import Foundation
import IntegrationSupport
import TestSupport
import Testing

@testable import Signing

/// RS256 assertions checked by an implementation independent of ours (Python's `cryptography`).
@Suite struct RS256VerificationTests {
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
