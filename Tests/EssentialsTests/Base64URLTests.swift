import Essentials
import Testing

@Suite struct Base64URLTests {
    static let vectors = [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
        ("foobar", "Zm9vYmFy"),
    ]

    @Test(arguments: vectors)
    func encodesRFC4648VectorsWithoutPadding(input: String, expected: String) {
        #expect(Base64URL.encode(Array(input.utf8)) == expected)
    }

    @Test(arguments: vectors)
    func decodesRFC4648VectorsWithAndWithoutPadding(expected: String, input: String) {
        #expect(Base64URL.decode(input) == Array(expected.utf8))
        let padded = input + String(repeating: "=", count: (4 - input.count % 4) % 4)
        #expect(Base64URL.decode(padded) == Array(expected.utf8))
    }

    @Test func usesTheURLSafeAlphabet() {
        #expect(Base64URL.encode([0xFB, 0xFF, 0xBF]) == "-_-_")
        #expect(Base64URL.decode("-_-_") == [0xFB, 0xFF, 0xBF])
    }

    @Test(arguments: ["Zm9v+g", "Zm9v/g", "Zm 9v", "Z", "Zm9vY", "Zh", "Zm9", "é"])
    func refusesOtherCharactersImpossibleLengthsAndStrayBits(input: String) {
        #expect(Base64URL.decode(input) == nil)
    }

    @Test func roundTripsEveryByteValue() {
        let bytes = (0...255).map { UInt8($0) }
        for length in 0...bytes.count {
            #expect(Base64URL.decode(Base64URL.encode(bytes.prefix(length))) == Array(bytes.prefix(length)))
        }
    }
}
