import Foundation
import PushCore
import TestSupport
import Testing

/// Every sample event's decisions and exact requests, compared with the golden files beside this test.
/// Regenerate after an intended change with `UPDATE_GOLDENS=1 swift test --filter GoldenRequestTests`.
@Suite struct GoldenRequestTests {
    static let events =
        (try? Repository.jsonFiles(in: Repository.examples.appendingPathComponent("chat-message")))
        ?? []

    static let unknownTypePolicies: [(String, RulesTable.UnknownTypePolicy)] = [
        ("fallback", RulesTable.standard.unknownType), ("skip", .skip), ("deadLetter", .deadLetter),
    ]

    @Test func everySeedTypeHasASampleEvent() {
        let names = Set(Self.events.map { $0.deletingPathExtension().lastPathComponent })
        #expect(names.isSuperset(of: Fixture.seedTypes + ["unreadCount", "call", "poll"]))
    }

    @Test(arguments: events)
    func sampleEventMatchesItsGolden(event file: URL) throws {
        let name = file.deletingPathExtension().lastPathComponent
        try compare(file: file, rules: .standard, golden: name)
    }

    @Test(arguments: unknownTypePolicies.map(\.0))
    func unknownTypeFollowsThePolicy(policy: String) throws {
        var rules = RulesTable.standard
        rules.unknownType = try #require(Self.unknownTypePolicies.first { $0.0 == policy }).1
        try compare(
            file: Repository.examples.appendingPathComponent("chat-message/poll.json"), rules: rules,
            golden: "unknown-type-\(policy)")
    }

    /// The sample event of every seed type sent to one recipient per language of the built-in table (ko, ja,
    /// zh-Hant, en), each with an APNs and an FCM device: `Goldens/Localized/<type>.json`.
    @Test(arguments: Fixture.seedTypes)
    func everySeedTypeInEveryLanguageMatchesItsGolden(type: String) throws {
        let file = Repository.examples.appendingPathComponent("chat-message/\(type).json")
        try compare(
            event: LocalizedEvents.addressed(to: LocalizedEvents.locales, try Repository.read(file)), rules: .standard,
            golden: "Localized/\(type)")
    }

    private func compare(file: URL, rules: RulesTable, golden: String) throws {
        try compare(event: try Repository.read(file), rules: rules, golden: golden)
    }

    private func compare(event bytes: [UInt8], rules: RulesTable, golden: String) throws {
        let event = try EventDecoder().decode(bytes, now: Fixture.now)
        let now = try #require(event.createdAt)
        let decisions = PushPlanner(rules: rules, context: Fixture.context).plan(event, now: now)
        let report = DecisionReport.json(event: event, decisions: decisions, now: now) + "\n"
        let goldenURL = Repository.tests.appendingPathComponent("Goldens/\(golden).json")
        if ProcessInfo.processInfo.environment["UPDATE_GOLDENS"] == "1" {
            try Data(report.utf8).write(to: goldenURL)
        }
        let expected = String(decoding: try Repository.read(goldenURL), as: UTF8.self)
        #expect(report == expected, "\(golden): the requests differ from Goldens/\(golden).json")
    }
}
