import Essentials
import TestSupport
import Testing

@Suite struct JSONWriterTests {
    @Test func writerEscapesWhatJSONRequiresAndKeepsTheRestAsUTF8() {
        var writer = JSONWriter()
        writer.beginObject()
        writer.field("text", "quote \" backslash \\ newline \n tab \t bell \u{7} emoji 👩‍👩‍👧 CJK 漢字")
        writer.field("n", -3)
        writer.key("list")
        writer.strings(["a", ""])
        writer.key("flag")
        writer.bool(false)
        writer.key("none")
        writer.null()
        writer.endObject()
        #expect(
            writer.text
                == #"{"text":"quote \" backslash \\ newline \n tab \t bell \u0007 emoji 👩‍👩‍👧 CJK 漢字","n":-3,"list":["a",""],"flag":false,"none":null}"#
        )
    }

    @Test func commasSeparateValuesAndMembersAtEveryDepth() {
        var writer = JSONWriter()
        writer.beginArray()
        writer.integer(Int64.min)
        writer.number(literal: "-0.5e10")
        writer.beginObject()
        writer.endObject()
        writer.beginArray()
        writer.beginArray()
        writer.endArray()
        writer.string("")
        writer.endArray()
        writer.beginObject()
        writer.field("a", 1)
        writer.key("b")
        writer.beginObject()
        writer.field("c", "d")
        writer.endObject()
        writer.endObject()
        writer.endArray()
        #expect(writer.text == #"[-9223372036854775808,-0.5e10,{},[[],""],{"a":1,"b":{"c":"d"}}]"#)
    }

    @Test func keysAndTheValuesOfLiteralKeysAreEscapedAsValuesAreAndTheBufferGrowsFromNothing() {
        var writer = JSONWriter(reservingCapacity: 0)
        writer.beginObject()
        writer.key("a\"b\n")
        writer.string("")
        writer.field(literal: "t", "x\u{1}\"")
        writer.key(literal: "at")
        writer.timestamp(epochMillis: 0)
        writer.field(literal: "n", -42)
        writer.key(literal: "list")
        writer.beginArray()
        writer.integer(0)
        writer.number(literal: "1.5")
        writer.endArray()
        writer.endObject()
        #expect(
            writer.text == #"{"a\"b\n":"","t":"x\u0001\"","at":"1970-01-01T00:00:00.000Z","n":-42,"list":[0,1.5]}"#)
    }

    @Test func everyControlCharacterIsEscapedAsFourHexDigits() {
        let controls = String(decoding: (0..<0x20).map { UInt8($0) }, as: UTF8.self)
        let quoted = JSONWriter.quoted(controls)
        #expect(quoted.hasPrefix(#""\u0000\u0001"#))
        #expect(quoted.contains(#"\b"#) == false)
        #expect(quoted.contains(#"\t\n\u000b\u000c\r\u000e"#))
        #expect(quoted.hasSuffix(#"\u001e\u001f""#))
    }

    @Test func literalKeysAndUTF8StringsWriteWhatTheirStringFormsWrite() {
        var nested = JSONWriter()
        nested.strings(["a \"b\"", "c\\d", "漢\n"])
        var literal = JSONWriter()
        literal.beginObject()
        literal.field(literal: "text", "x")
        literal.field(literal: "n", 7)
        literal.key(literal: "json")
        literal.string(utf8: nested.bytes)
        literal.endObject()
        var plain = JSONWriter()
        plain.beginObject()
        plain.field("text", "x")
        plain.field("n", 7)
        plain.field("json", nested.text)
        plain.endObject()
        #expect(literal.bytes == plain.bytes)
        #expect(literal.text == #"{"text":"x","n":7,"json":"[\"a \\\"b\\\"\",\"c\\\\d\",\"漢\\n\"]"}"#)
    }
}

/// The writer's escaping, which tests eight bytes at a time, against a byte-by-byte reference.
@Suite struct JSONWriterEscapingTests {
    /// JSON's escaping one byte at a time, as the writer documents it.
    static func reference(_ text: String) -> String {
        var out = Array("\"".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += Array("\\\"".utf8)
            case UInt8(ascii: "\\"): out += Array("\\\\".utf8)
            case UInt8(ascii: "\n"): out += Array("\\n".utf8)
            case UInt8(ascii: "\r"): out += Array("\\r".utf8)
            case UInt8(ascii: "\t"): out += Array("\\t".utf8)
            case 0..<0x20: out += Array(("\\u00" + String(byte, radix: 16).leftPadded(to: 2)).utf8)
            default: out.append(byte)
            }
        }
        return String(decoding: out + Array("\"".utf8), as: UTF8.self)
    }

    @Test(arguments: 0..<8)
    func everyTextIsEscapedAsByteByByte(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        let alphabet: [Character] = [
            "a", "Z", "0", " ", "\"", "\\", "\n", "\t", "\u{1}", "\u{1F}", "\u{7F}", "é", "漢", "👩‍👩‍👧", "!", "{", "~",
        ]
        for _ in 0..<300 {
            let length = Int(generator.next() % 40)
            let text = String((0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
            #expect(JSONWriter.quoted(text) == Self.reference(text), "\(Array(text.utf8))")
        }
    }

    @Test func aWordEndsTheFastPathExactlyWhenOneOfItsBytesNeedsAnEscape() {
        var generator = SeededGenerator(seed: 41)
        let interesting: [UInt8] = [
            0x00, 0x01, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7F, 0x80, 0xA2, 0xDC, 0xFF,
        ]
        for _ in 0..<20_000 {
            let bytes = (0..<8).map { _ in interesting[Int(generator.next() % UInt64(interesting.count))] }
            let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            let expected = bytes.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }
            #expect(StringWord.endsFastPath(word) == expected, "\(bytes)")
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
