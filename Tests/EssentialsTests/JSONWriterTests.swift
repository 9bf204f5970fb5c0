import Essentials
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
