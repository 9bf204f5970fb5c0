import Testing

@testable import Essentials

@Suite struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        ),
    ])
    func digestsMatchTheFIPSVectors(message: String, digest: String) {
        #expect(SHA256.hexDigest(message) == digest)
    }

    /// Messages that end just before, at and after the padding's boundaries (55/56 and 119/120 bytes: one or two
    /// tail blocks), from contiguous storage and from a lazy collection (digests from Python's hashlib).
    @Test(arguments: [
        (55, "576a1bf8d4478657e6dc4af9398544765c2a92cde28478b019235cfed315fc09"),
        (56, "9b20501dfd1d99161c257950f3444f3e49230c351c5c8e0943ef369f85f5205d"),
        (63, "30b345906b493f06f69444b6521113511c242f30e29840462950035043682f1e"),
        (64, "d8bc63b4fc1156e5e7d95a418b9bf54cd3174bedbc2db40f74895349b229b3c0"),
        (65, "1ee23b0fbcaecc1aff4a9e8f1645f35ab2c8e13609cd73b68df8b5e3f63ce073"),
        (119, "7a6589821178918ca8d9edaba5abfc1e9b2669564f4469b66885379c1530b2c8"),
        (120, "655250427d56b1b0eeb8497d21428704273458a01772d6881b65c0abac0f8a98"),
        (128, "54c9eb041badfd7064645067b107661fed6113197ce2dd066ba69618abd3732f"),
    ])
    func lengthsAroundThePaddingBoundariesHashCorrectly(length: Int, digest: String) {
        let lazy = (0..<length).lazy.map { UInt8(truncatingIfNeeded: $0 * 7) }
        #expect(SHA256.hexDigest(lazy) == digest)
        #expect(SHA256.hexDigest(Array(lazy)) == digest)
    }

    @Test(arguments: ["", "abc", String(repeating: "é", count: 100)])
    func bytesAndTextHashAsTheGenericCollectionDoes(text: String) {
        let expected = SHA256.hash(text.utf8.lazy.map { $0 })
        #expect(SHA256.hash(Array(text.utf8)) == expected)
        #expect(SHA256.hash(utf8: text) == expected)
    }

    @Test func aMillionAsMatchTheLongVector() {
        #expect(
            SHA256.hexDigest(repeatElement(UInt8(ascii: "a"), count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// The inline digest holds the same 32 bytes as the array, in order, and compares by them.
    @Test(arguments: ["", "abc", String(repeating: "é", count: 100)])
    func theInlineDigestHoldsTheArraysBytes(text: String) {
        let digest = SHA256.digest(utf8: text)
        #expect(Array(digest) == SHA256.hash(utf8: text))
        #expect(digest.count == 32)
        #expect(digest.withUnsafeBytes { Array($0) } == SHA256.hash(utf8: text))
        #expect(SHA256.digest(of: Array(text.utf8)) == digest)
        #expect(SHA256.digest(utf8: text + "x") != digest)
    }

    @Test func tokenHashesArePrefixedHexDigests() {
        #expect(SHA256.tokenHash("abc") == "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}

/// Where the CPU has the x86 SHA extensions (this machine and CI's do), their compression against the portable Swift
/// one, over every length across the padding's boundaries and several whole blocks.
@Suite struct SHA256ExtensionsTests {
    @Test func theExtensionsAndPortableSwiftAgreeOnEveryLengthUpTo300Bytes() {
        var random = SystemRandomNumberGenerator()
        for length in 0...300 {
            let message = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            let (fast, portable) = message.withUnsafeBufferPointer { bytes in
                (SHA256.digest(bytes, portable: false), SHA256.digest(bytes, portable: true))
            }
            #expect(fast == portable, "length \(length)")
        }
    }

    @Test func theFIPSVectorsHashTheSameWithoutTheExtensions() {
        let message = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        let digest = message.withUnsafeBufferPointer { SHA256.digest($0, portable: true) }
        #expect(SHA256.hex(digest) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }
}
