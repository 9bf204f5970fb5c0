import Essentials
import TestSupport
import Testing

@testable import Signing

/// The header and claims of each token, byte for byte: members in name order, slashes as they are, nothing else.
@Suite struct JSONWebTokenTests {
    /// The header and claims segments of `token` as text.
    static func segments(_ token: String) -> [String?] {
        token.split(separator: ".").prefix(2).map {
            Base64URL.decode(String($0)).map { String(decoding: $0, as: UTF8.self) }
        }
    }

    @Test func theAPNsProviderTokenNamesTheKeyAndTheTeam() throws {
        let key = try ES256Key(pem: try TestKeys.p256.get())
        let token = try JSONWebToken.apnsProviderToken(
            key: key, keyId: "KEYID12345", teamId: "TEAMID1234", issuedAt: 1_795_996_800)
        #expect(
            Self.segments(token) == [
                #"{"alg":"ES256","kid":"KEYID12345"}"#, #"{"iat":1795996800,"iss":"TEAMID1234"}"#,
            ])
    }

    @Test(arguments: [("key-1", #"{"alg":"RS256","kid":"key-1","typ":"JWT"}"#), (nil, #"{"alg":"RS256","typ":"JWT"}"#)])
    func theGoogleAssertionCarriesItsKeyIDWhenTheAccountHasOne(keyID: String?, header: String) throws {
        let key = try RS256Key(pem: try TestKeys.rsa.get())
        let token = try JSONWebToken.googleAssertion(
            key: key, keyId: keyID, issuer: #"push@demo-project.iam.gserviceaccount.com"#,
            scope: "https://www.googleapis.com/auth/firebase.messaging",
            audience: #"https://oauth2.googleapis.com/token?a="b"\c"#, issuedAt: 1_795_996_800, lifetime: 3600)
        #expect(
            Self.segments(token) == [
                header,
                #"{"aud":"https://oauth2.googleapis.com/token?a=\"b\"\\c","exp":1796000400,"iat":1795996800,"#
                    + #""iss":"push@demo-project.iam.gserviceaccount.com","#
                    + #""scope":"https://www.googleapis.com/auth/firebase.messaging"}"#,
            ])
    }
}
