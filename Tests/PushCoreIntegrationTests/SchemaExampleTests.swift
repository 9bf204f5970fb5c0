import Foundation
import IntegrationSupport
import PushCore
import TestSupport
import Testing

/// Every example in `schemas/examples` validates against its schema with `check-jsonschema` (from `.venv`),
/// and so does the built-in rules table; a broken example is rejected.
@Suite struct SchemaExampleTests {
    static let schemas = [
        "chat-message", "rules", "receipt", "dead-letter-headers", "invalid-token", "subscription", "client-settings",
        "imkit-message", "custom-push", "unsubscribe-request",
    ]

    @Test(arguments: schemas)
    func examplesValidateAgainstTheirSchema(schema: String) throws {
        var files = try Repository.jsonFiles(in: Repository.examples.appendingPathComponent(schema)).map(\.path)
        #expect(!files.isEmpty)
        var exported: URL?
        if schema == "rules" {
            exported = try Repository.temporaryFile(Array(RulesTable.standardJSON.utf8))
            files.append(exported?.path ?? "")
        }
        defer { exported.map { try? FileManager.default.removeItem(at: $0) } }
        let (status, output) = try Repository.runTool(
            "check-jsonschema", ["--schemafile", "schemas/\(schema).schema.json".inRepository] + files)
        #expect(status == 0, "\(output)")
    }

    @Test func brokenEventsAreRejectedBySchema() throws {
        let broken = try Repository.temporaryFile(
            Array(
                #"{"type": "text", "room": {"id": "r"}, "sender": {"id": "s"}, "recipients": [{"userId": "u", "devices": [{"platform": "apns", "token": "zz"}]}]}"#
                    .utf8))
        defer { try? FileManager.default.removeItem(at: broken) }
        let (status, output) = try Repository.runTool(
            "check-jsonschema", ["--schemafile", "schemas/chat-message.schema.json".inRepository, broken.path])
        #expect(status != 0)
        #expect(output.contains("'id' is a required property"))
    }

    @Test(arguments: [
        (#""type": "\#(String(repeating: "t", count: 65))", "room": {"id": "r"}"#, "$.type"),
        (#""type": "text", "room": {"id": "\#(String(repeating: "r", count: 257))"}"#, "$.room.id"),
    ])
    func theSchemaStatesTheLengthLimitsTheDecoderEnforces(members: String, path: String) throws {
        let json = #"{"id": "m", "sender": {"id": "s"}, "recipients": [], \#(members)}"#
        #expect(throws: EventError.self) { try EventDecoder().decode(Array(json.utf8), now: Fixture.now) }
        let file = try Repository.temporaryFile(Array(json.utf8))
        defer { try? FileManager.default.removeItem(at: file) }
        let (status, output) = try Repository.runTool(
            "check-jsonschema", ["--schemafile", "schemas/chat-message.schema.json".inRepository, file.path])
        #expect(status != 0)
        #expect(output.contains(path), "\(output)")
    }

    @Test func everyExampleRulesFileLoads() throws {
        let files = try Repository.jsonFiles(in: Repository.examples.appendingPathComponent("rules"))
        // The rules examples there are (an emptied or renamed folder fails here, not silently passes).
        #expect(files.map(\.lastPathComponent) == ["custom.json"])
        for file in files {
            let bytes = try Repository.read(file)
            let table = try RulesTable.load(json: bytes)
            // Every type the file lists is in the loaded table (a loader that dropped them would pass otherwise).
            guard case .object(let types)? = try JSONParser.parse(bytes)["types"] else {
                Issue.record("\(file.lastPathComponent) has no types object")
                continue
            }
            #expect(!types.isEmpty)
            #expect(Set(table.types.keys) == Set(types.map(\.key)), "\(file.lastPathComponent)")
        }
    }
}

extension String {
    /// This repository-relative path made absolute.
    fileprivate var inRepository: String { Repository.root.appendingPathComponent(self).path }
}
