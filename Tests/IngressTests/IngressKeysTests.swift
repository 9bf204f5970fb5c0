import Testing

@testable import Ingress

@Suite struct IngressKeysTests {
    @Test func commaAndLineSeparatedEntriesWithCommentsAreRead() throws {
        let keys = try IngressKeys(parsing: "# rotation\nA:one, A:two\n\nB:three # new\r\n")
        #expect(keys.apps == ["A", "B"])
        #expect(keys.app(presenting: "one") == "A")
        #expect(keys.app(presenting: "two") == "A")
        #expect(keys.app(presenting: "three") == "B")
        #expect(keys.app(presenting: "thre") == nil)
        #expect(keys.app(presenting: "") == nil)
    }

    @Test func theDefaultAppIsSpeltDefaultInParentheses() throws {
        let keys = try IngressKeys(parsing: "(default):one,A:two")
        #expect(keys.app(presenting: "one") == "")
        #expect(keys.apps == ["", "A"])
        #expect(keys.description == "(default): 1 key(s), A: 1 key(s)")
    }

    @Test func appsThatDifferInBytesOnlyAreTwoApps() throws {
        let keys = try IngressKeys(parsing: "caf\u{E9}:one,cafe\u{301}:two")
        #expect(keys.apps.count == 2)
        #expect(keys.app(presenting: "two")?.unicodeScalars.count == 5)
    }

    @Test(arguments: ["", "A", "A:", ":k", "A:k,B"])
    func aMalformedListIsRefused(text: String) {
        #expect(throws: IngressKeys.InvalidEntry.self) { try IngressKeys(parsing: text) }
    }

    @Test func theErrorAndTheDescriptionNeverShowAKey() throws {
        #expect(!(try IngressKeys(parsing: "A:secret-1,A:secret-2")).description.contains("secret"))
        do {
            _ = try IngressKeys(parsing: "A:secret-1,B")
        } catch {
            #expect(error.description == "entry 2: is not app:key")
        }
    }

    @Test func keysOfDifferentLengthsAreUnequal() {
        #expect(!IngressKeys.constantTimeEqual(Array("abc".utf8), Array("abcd".utf8)))
        #expect(!IngressKeys.constantTimeEqual(Array("abcd".utf8), Array("abc".utf8)))
        #expect(IngressKeys.constantTimeEqual(Array("abc".utf8), Array("abc".utf8)))
    }
}
