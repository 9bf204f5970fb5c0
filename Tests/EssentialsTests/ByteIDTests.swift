import Essentials
import Testing

@Suite struct ByteIDTests {
    static let composed = ByteID("caf\u{E9}")
    static let decomposed = ByteID("cafe\u{301}")

    @Test func canonicallyEquivalentTextsAreDifferentIds() {
        #expect(Self.composed.text == Self.decomposed.text)
        #expect(Self.composed != Self.decomposed)
        #expect(Set([Self.composed, Self.decomposed]).count == 2)
        #expect([Self.composed: 1, Self.decomposed: 2][Self.decomposed] == 2)
    }

    @Test func theSameBytesAreTheSameIdAndHashAlike() {
        // One text built at once, the other from parts: other storage, the same bytes.
        let built = ByteID(String(["c", "a", "f", "\u{E9}"].joined()))
        #expect(built == Self.composed)
        #expect(built.hashValue == Self.composed.hashValue)
        let long = String(repeating: "client-é-", count: 20)
        let copy = ByteID(String(decoding: Array(long.utf8), as: UTF8.self))
        #expect(copy == ByteID(long))
        #expect(copy.hashValue == ByteID(long).hashValue)
        #expect(ByteID("") == ByteID(""))
        #expect(ByteID("a") != ByteID("ab"))
    }

    @Test func theOrderIsTheBytesOrder() {
        // `e` (0x65) is before `é`'s first byte (0xC3); a prefix comes first; a capital before a small letter.
        #expect(Self.decomposed < Self.composed)
        #expect(ByteID("caf") < ByteID("cafe"))
        #expect(ByteID("Z") < ByteID("a"))
        #expect(!(Self.composed < Self.composed))
        let sorted = [ByteID("b"), Self.composed, ByteID(""), Self.decomposed].sorted()
        #expect(sorted.map(\.text.utf8.count) == [0, 1, 6, 5])
    }

    @Test func idsOfAPairHashApartFromTheSameBytesSplitElsewhere() {
        var first = Hasher()
        first.combine(ByteID("ab"))
        first.combine(ByteID("c"))
        var second = Hasher()
        second.combine(ByteID("a"))
        second.combine(ByteID("bc"))
        #expect(first.finalize() != second.finalize())
    }
}
