import Foundation
import TestSupport
import Testing

@testable import Signing

@Suite struct RS256Tests {
    @Test func refusesAnECKey() throws {
        let p256 = try TestKeys.p256.get()
        #expect(throws: SigningError.self) { try RS256Key(pem: p256) }
    }
}
