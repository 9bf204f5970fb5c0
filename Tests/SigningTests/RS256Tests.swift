import Foundation
import TestSupport
import Testing

@testable import Signing

@Suite struct RS256Tests {
    @Test func googleAssertionHasTheGrantClaimsAndVerifies() throws {
        let pem = try TestKeys.rsa.get()
        let key = try RS256Key(pem: pem)
        let jwt = try JSONWebToken.googleAssertion(
            key: key, keyId: "k1", issuer: "sa@p.iam.gserviceaccount.com", scope: "s", audience: "https://t/token",
            issuedAt: 100)
        let parts = jwt.split(separator: ".").map(String.init)
        #expect(decode(parts[0]) == #"{"alg":"RS256","kid":"k1","typ":"JWT"}"#)
        #expect(
            decode(parts[1])
                == #"{"aud":"https://t/token","exp":3700,"iat":100,"iss":"sa@p.iam.gserviceaccount.com","scope":"s"}"#)
        #expect(try JWTChecks.pythonVerifies(jwt: jwt, pem: pem))
    }

    @Test func refusesAnECKey() throws {
        let p256 = try TestKeys.p256.get()
        #expect(throws: SigningError.self) { try RS256Key(pem: p256) }
    }
}
