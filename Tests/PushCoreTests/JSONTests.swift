import Essentials
import PushCore
import Testing

@Suite struct JSONTests {
    @Test func parsedDocumentsRoundTripByteForByte() throws {
        let text = #"{"b":[1,-0.5e10,true,null,{}],"a":"\u00e9\ud83d\ude00\/","c":[]}"#
        let value = try JSONParser.parse(Array(text.utf8))
        #expect(value["a"]?.stringValue == "é😀/")
        #expect(
            String(decoding: JSONWriter.encode(value), as: UTF8.self)
                == #"{"b":[1,-0.5e10,true,null,{}],"a":"é😀/","c":[]}"#)
    }

    @Test func unescapedStringsKeepTheirCharacters() throws {
        let value = try JSONParser.parse(Array(#"{"ascii":"m-1","korean":"안녕 세계","mixed":"a\nb 😀"}"#.utf8))
        #expect(value["ascii"]?.stringValue == "m-1")
        #expect(value["korean"]?.stringValue == "안녕 세계")
        #expect(value["mixed"]?.stringValue == "a\nb 😀")
    }

    @Test(arguments: [
        (Array(#""\ud800""#.utf8), "invalid JSON at byte 7: unpaired surrogate in \\u escape"),
        ([0x22, 0xFF, 0x22], "invalid JSON at byte 1: string is not valid UTF-8"),
        // ASCII first, then a truncated two-byte sequence: the ASCII fast path must not take it.
        ([0x22, 0x61, 0x62, 0xC3, 0x22], "invalid JSON at byte 1: string is not valid UTF-8"),
        (Array("[1,]".utf8), "invalid JSON at byte 3: unexpected character"),
        (Array("01".utf8), "invalid JSON at byte 1: unexpected data after the document"),
        (Array("{\"a\" 1}".utf8), "invalid JSON at byte 5: expected ':'"),
        (Array("\"a\nb\"".utf8), "invalid JSON at byte 2: control character in string"),
        (Array(repeating: UInt8(ascii: "["), count: 65), "invalid JSON at byte 64: nested deeper than 64 levels"),
        (Array("".utf8), "invalid JSON at byte 0: unexpected end of input"),
    ])
    func invalidDocumentsAreRejectedWithTheOffset(bytes: [UInt8], message: String) {
        let error = #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(bytes) }
        #expect(error?.description == message)
    }
}

@Suite struct JSONDuplicateNameTests {
    @Test(arguments: [
        (#"{"a": 1, "a": 2}"#, "a", 9),
        (#"{"a": [0, {"b": {}, "b": {}}]}"#, "a[1].b", 20),
        (#"[[], [{"k": 1, "k": 1}]]"#, "[1][0].k", 15),
        // Within the scan of the first sixteen names, and past it, where a set finds the repeat.
        (#"{"1":0,"2":0,"3":0,"4":0,"5":0,"6":0,"7":0,"8":0,"9":0,"10":0,"3":0}"#, "3", 62),
        (
            #"{"1":0,"2":0,"3":0,"4":0,"5":0,"6":0,"7":0,"8":0,"9":0,"10":0,"11":0,"12":0,"13":0,"14":0,"15":0,"16":0,"#
                + #""17":0,"18":0,"3":0}"#, "3", 118
        ),
    ])
    func repeatedNamesAreRejectedWithThePathAndOffset(json: String, path: String, offset: Int) {
        do {
            _ = try JSONParser.parse(Array(json.utf8))
            Issue.record("parsed a document with a repeated name")
        } catch {
            #expect(error == JSONSyntaxError(offset: offset, path: path, reason: "duplicate member name"))
        }
    }

    @Test func errorsInsideValuesNameWhereTheyAre() {
        do {
            _ = try JSONParser.parse(Array(#"{"x": [1, {"y": tru}]}"#.utf8))
            Issue.record("parsed an invalid document")
        } catch {
            #expect(error.path == "x[1].y")
        }
    }

    @Test func longOrControlCharacterNamesAreShownCutAndPrintable() {
        let long = String(repeating: "k", count: 800_000)
        do {
            _ = try JSONParser.parse(Array(#"{"\#(long)": 1, "\#(long)": 2}"#.utf8))
            Issue.record("parsed a document with a repeated name")
        } catch {
            #expect(error.path == String(repeating: "k", count: 64) + "…")
        }
        do {
            _ = try JSONParser.parse(Array(#"{"a\tb\u0000\u007f": {"x": nul}}"#.utf8))
            Issue.record("parsed an invalid document")
        } catch {
            #expect(error.path == "a?b??.x")
        }
    }

    @Test func theSameNameInDifferentObjectsIsFine() throws {
        let value = try JSONParser.parse(Array(#"{"a": {"a": 1}, "b": [{"a": 2}, {"a": 3}]}"#.utf8))
        #expect(value["a"]?["a"] == .number("1"))
    }
}

@Suite struct JSONStringMemberTests {
    @Test func readsOneStringMemberOfAnObject() {
        let answer = Array(#"{"name": "projects/p/messages/0:1", "other": {"name": "inner"}}"#.utf8)
        #expect(JSONParser.string(member: "name", of: answer) == "projects/p/messages/0:1")
        #expect(JSONParser.string(member: "other", of: answer) == nil)
        #expect(JSONParser.string(member: "missing", of: answer) == nil)
        #expect(JSONParser.string(member: "name", of: Array(#"{"name": "a\"b\u00e9"}"#.utf8)) == "a\"bé")
    }

    @Test(arguments: [
        #"{"name": 1}"#, #"["name"]"#, #""name""#, #"{"name": "x"} trailing"#, #"{"name": "x""#, "",
        #"{"name": "x", "name": "y"}"#,
    ])
    func answersNilForAnythingButAValidObjectWithTheStringMember(_ text: String) {
        #expect(JSONParser.string(member: "name", of: Array(text.utf8)) == nil)
    }
}
