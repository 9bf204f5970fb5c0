import PushCore
import Testing

@testable import Configuration

/// The rules table in force at start is read with the other settings.
@Suite struct StartingRulesTests {
    @Test func withoutARulesFileTheBuiltInTableStartsWithoutAStamp() throws {
        let rules = try StartingRules.load(path: nil, files: MemoryFile())
        #expect(rules.table == .standard)
        #expect(rules.stamp == nil)
    }

    @Test func aRulesFileThatDoesNotLoadNamesPUSH_RULES_FILEAndThePath() {
        let files = MemoryFile()
        files.write("{\"not\": \"a rules table\"", version: 1)
        let error = #expect(throws: InvalidSetting.self) { try StartingRules.load(path: "/rules.json", files: files) }
        #expect(error?.variable == "PUSH_RULES_FILE")
        #expect(error?.reason.hasPrefix("/rules.json: ") == true)
    }

    @Test func aMissingRulesFileNamesPUSH_RULES_FILE() {
        let error = #expect(throws: InvalidSetting.self) {
            try StartingRules.load(path: "/rules.json", files: MemoryFile())
        }
        #expect(error?.description == "invalid PUSH_RULES_FILE: /rules.json: missing")
    }
}
