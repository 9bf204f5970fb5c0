import Testing

@testable import PushCore

/// The tape read in place: what the event decoder sees of a record without a tree.
@Suite struct JSONTapeTests {
    private func read<T>(_ json: String, _ body: (JSONTape.Value) -> T) throws -> T {
        try JSONTape(parsing: Array(json.utf8)).withRoot(body)
    }

    @Test func membersAreFoundPastNestedValues() throws {
        let json = #"{"a": {"b": [1, {"c": 2}, []], "e": {}}, "d": 3, "f": "x", "g": [[], [[]]], "h": null}"#
        try read(json) { root in
            #expect(root.member("d")?.numberLiteral == "3")
            #expect(root.member("f")?.string == "x")
            #expect(root.member("h")?.isNull == true)
            #expect(root.member("g")?.elements?.count == 2)
            let b = root.member("a")?.member("b")?.elements.map(Array.init)
            #expect(b?.count == 3)
            #expect(b?[1].member("c")?.numberLiteral == "2")
            #expect(b?[2].elements?.isEmpty == true)
            #expect(root.member("a")?.member("e")?.isObject == true)
            #expect(root.member("c") == nil)
            #expect(root.member("b") == nil)
        }
    }

    @Test func everyKindReadsAsItsTree() throws {
        let json = #"{"s": "a\"b", "u": "안녕", "n": -1.5e3, "t": true, "f": false, "z": null, "o": {"k": [1]}}"#
        try read(json) { root in
            #expect(root.member("s")?.string == "a\"b")
            #expect(root.member("u")?.string == "안녕")
            #expect(root.member("n")?.numberLiteral == "-1.5e3")
            #expect(root.member("n")?.string == nil)
            #expect(root.member("t")?.bool == true)
            #expect(root.member("f")?.bool == false)
            #expect(root.member("z")?.bool == nil)
            #expect(root.member("s")?.member("k") == nil)
            #expect(root.member("o")?.elements == nil)
            #expect(
                ["s", "u", "n", "t", "f", "z", "o"].compactMap { root.member($0)?.typeName }
                    == ["string", "string", "number", "boolean", "boolean", "null", "object"])
            #expect(root.member("o")?.tree == .object([JSONMember("k", .array([.number("1")]))]))
        }
    }

    @Test func namesAreComparedAsStringsCompareThem() throws {
        // An escaped name is its text; canonically equivalent names (é and e + U+0301) are the same name.
        let json = #"{"\u0069d": "m-1", "caf\u00e9": 1, "日本": 2, "K": 3}"#
        try read(json) { root in
            #expect(root.member("\u{212A}")?.numberLiteral == "3")
            #expect(root.member("id")?.string == "m-1")
            #expect(root.member("café")?.numberLiteral == "1")
            #expect(root.member("cafe\u{301}")?.numberLiteral == "1")
            #expect(root.member("日本")?.numberLiteral == "2")
            #expect(root.member("i") == nil)
            #expect(root.member("idx") == nil)
        }
    }

    @Test(arguments: [
        (#"{"id": 1, "\u0069d": 2}"#, "id", 10),
        (#"{"é": 1, "e\u0301": 2}"#, "é", 10),
        (#"{"1":0,"2":0,"3":0,"4":0,"5":0,"6":0,"7":0,"8":0,"9":0,"10":0,"\u0033":0}"#, "3", 62),
        (
            #"{"1":0,"2":0,"3":0,"4":0,"5":0,"6":0,"7":0,"8":0,"9":0,"10":0,"11":0,"12":0,"13":0,"14":0,"15":0,"16":0,"#
                + #""17":0,"18":0,"\u0033":0}"#, "3", 118
        ),
    ])
    func namesThatAreTheSameTextAreRepeats(json: String, path: String, offset: Int) {
        let error = #expect(throws: JSONSyntaxError.self) { try JSONTape(parsing: Array(json.utf8)) }
        #expect(error == JSONSyntaxError(offset: offset, path: path, reason: "duplicate member name"))
    }

    @Test func anEmptyContainerEndsWhereItCloses() throws {
        try read(#"[{}, [], {"a": []}, 7]"#) { root in
            let elements = root.elements.map(Array.init) ?? []
            #expect(elements.map(\.typeName) == ["object", "array", "object", "number"])
            #expect(elements.last?.numberLiteral == "7")
            #expect(root.elements?.count == 4)
            #expect(elements[1].elements?.isEmpty == true)
            #expect(elements[1].elements?.count == 0)
        }
        // Elements read in place go from one to the next over what each holds, as deep as it goes.
        try read(#"[[1, [2, [3]]], {"a": [4, 5]}, [], "six"]"#) { root in
            #expect(root.elements?.map(\.typeName) == ["array", "object", "array", "string"])
            #expect(root.elements?.first?.elements?.map(\.typeName) == ["number", "array"])
            #expect(root.elements?.first?.elements?.dropFirst().first?.elements?.count == 2)
            #expect(root.elements.map(Array.init)?.last?.string == "six")
        }
    }

    /// Strings are read eight bytes at a time: whatever ends that (a quote, a backslash, a control character, a byte
    /// of another character) is found at every position of a word.
    @Test func stringsAreReadTheSameWhereverTheirSpecialBytesFall() throws {
        for position in 0..<20 {
            let before = String(repeating: "a", count: position)
            let after = String(repeating: "b", count: 19 - position)
            let escaped = try read(#"["\#(before)\n\#(after)"]"#) { $0.elements?.first?.string }
            #expect(escaped == before + "\n" + after)
            let korean = try read(#"["\#(before)한\#(after)"]"#) { $0.elements?.first?.string }
            #expect(korean == before + "한" + after)
            var control = Array(#"[""#.utf8) + Array(before.utf8) + [0x01] + Array(#"\#(after)"]"#.utf8)
            #expect(throws: JSONSyntaxError(offset: 2 + position, path: "[0]", reason: "control character in string")) {
                try JSONTape(parsing: control)
            }
            control[2 + position] = 0xFF
            #expect(throws: JSONSyntaxError(offset: 2, path: "[0]", reason: "string is not valid UTF-8")) {
                try JSONTape(parsing: control)
            }
        }
    }
}
