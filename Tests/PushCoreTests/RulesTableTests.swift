import PushCore
import TestSupport
import Testing

@Suite struct RulesTableTests {
    @Test(arguments: Fixture.seedTypes)
    func theDefaultTableCoversEverySeedType(type: String) throws {
        guard case .listed(let rule) = RulesTable.standard.rule(for: type) else {
            Issue.record("\(type) is not listed")
            return
        }
        #expect(rule.locKey.description == "im_loc_{type}")
        #expect(rule.clickAction == "push_chatroom")
        #expect(rule.collapseKey?.description == "{room.id}")
        #expect(rule.threadID?.description == "{room.id}")
        #expect(rule.body != nil)
        #expect(rule.locArgs.first?.description == "{sender.nickname}")
        let second = rule.locArgs.dropFirst().first?.description
        switch type {
        case "addMember", "deleteMember": #expect(second == "{target.nickname}")
        case "joinRoom", "leaveRoom", "addMembers", "encrypted": #expect(second == nil)
        default: #expect(second == "{content}")
        }
        #expect(rule.mutableContent == ["image", "video", "audio", "sticker"].contains(type))
    }

    @Test func theDefaultTableHasSilentAndVoIPTypesAndAFallback() {
        #expect(RulesTable.standard.types["unreadCount"]?.kind == .silent)
        #expect(RulesTable.standard.types["call"]?.kind == .voip)
        guard case .fallback(let rule) = RulesTable.standard.rule(for: "poll") else {
            Issue.record("unknown types fall back by default")
            return
        }
        #expect(rule.hidesContent)
    }

    @Test func typesInheritTheDefaultsOfTheFile() throws {
        let table = try RulesTable.load(
            json: Array(
                #"{"defaults": {"sound": "chime.aiff", "ttlSeconds": 60}, "types": {"a": {}, "b": {"sound": null}}}"#
                    .utf8))
        #expect(table.types["a"]?.sound == "chime.aiff")
        #expect(table.types["a"]?.timeToLiveSeconds == 60)
        #expect(table.types["b"]?.sound == nil)
        #expect(table.unknownType == .fallback(table.types["a"] ?? PushRule()))
    }

    @Test(arguments: [
        ("[]", "must be an object, not array"),
        ("{", "invalid JSON at byte 1: expected a member name"),
        (#"{}"#, "types: required"),
        (
            #"{"types": [], "extra": 1}"#,
            "extra: unknown key (allowed: anonymousName, defaultLocale, defaults, types, unknownType); types: must be an object, not array"
        ),
        (
            #"{"types": {"a": {"ttlSeconds": 1.5}}}"#,
            "types.a.ttlSeconds: must be a whole number of seconds from 0 to 2419200"
        ),
        (
            #"{"types": {"a": {"ttlSeconds": 9999999}}}"#,
            "types.a.ttlSeconds: must be a whole number of seconds from 0 to 2419200"
        ),
        (
            #"{"types": {"a": {"kind": "loud"}}}"#,
            #"types.a.kind: must be one of "alert", "silent", "voip", "skip", not "loud""#
        ),
        (#"{"types": {"a": {"priority": 10}}}"#, #"types.a.priority: must be one of "high", "normal", not number"#),
        (
            #"{"types": {"a": {"body": "{sender.name}"}}}"#,
            "types.a.body: unknown placeholder '{sender.name}' (known: {sender.id}, {sender.nickname}, {target.id}, {target.nickname}, {content}, {room.id}, {room.name}, {type}, {message.id})"
        ),
        (#"{"types": {"a": {"body": "{content"}}}"#, "types.a.body: unclosed '{'"),
        (#"{"types": {"a": {"locArgs": ["ok", "x}"]}}}"#, "types.a.locArgs[1]: '}' without '{'"),
        (#"{"types": {"a": {"locArgs": "x"}}}"#, "types.a.locArgs: must be an array of templates, not string"),
        (#"{"types": {"a": {"mutableContent": 1}}}"#, "types.a.mutableContent: must be true or false, not number"),
        (#"{"types": {"a": {"sound": ""}}}"#, "types.a.sound: must not be empty"),
        (
            #"{"types": {"a": {"interruptionLevel": "loud"}}}"#,
            "types.a.interruptionLevel: must be one of passive, active, time-sensitive, critical or null"
        ),
        (
            #"{"types": {"a": {"colour": "red"}}}"#,
            "types.a.colour: unknown key (allowed: kind, locKey, locArgs, title, body, sound, clickAction, icon, collapseKey, threadId, category, mutableContent, priority, ttlSeconds, interruptionLevel, hideContent, forwardPayload)"
        ),
        (#"{"types": {"": {}}}"#, "types.: type name must not be empty"),
        (
            #"{"types": {}, "unknownType": {"policy": "drop"}}"#,
            #"unknownType.policy: must be "fallback", "skip" or "deadLetter", not "drop""#
        ),
        (
            #"{"types": {}, "unknownType": {"policy": "skip", "rule": {}}}"#,
            #"unknownType.rule: only allowed with policy "fallback""#
        ),
        (#"{"types": {}, "anonymousName": 3}"#, "anonymousName: must be a string, not number"),
        (
            #"{"types": {"a": {"body": {"ko": "x", "ja": "y"}}}}"#,
            "types.a.body: no text for the default locale en (defaultLocale)"
        ),
        (
            #"{"defaultLocale": "ko", "types": {"a": {"title": {"en": "x"}}}}"#,
            "types.a.title: no text for the default locale ko (defaultLocale)"
        ),
        (
            #"{"types": {"a": {"body": {"en": "x", "ko_KR": "y"}}}}"#,
            #"types.a.body.ko_KR: "ko_KR" is not a language tag (language[-Script][-REGION], e.g. ko, zh-Hant, en-US)"#
        ),
        (
            #"{"types": {"a": {"body": {"en": "x", "EN": "y"}}}}"#,
            "types.a.body.EN: a second text for en"
        ),
        (#"{"types": {"a": {"body": {"en": 3}}}}"#, "types.a.body.en: must be a string, not number"),
        (
            #"{"defaultLocale": "english", "types": {}}"#,
            #"defaultLocale: "english" is not a language tag (language[-Script][-REGION], e.g. ko, zh-Hant, en-US)"#
        ),
        (
            #"{"types": {"text": {"sound": "a", "sound": "b"}}}"#,
            "types.text.sound: invalid JSON at byte 34: duplicate member name"
        ),
    ])
    func brokenRulesFilesNameThePathAndTheReason(json: String, message: String) {
        let error = #expect(throws: RulesError.self) { try RulesTable.load(json: Array(json.utf8)) }
        #expect(error?.description == message)
    }

    @Test func everyProblemOfAFileIsReportedAtOnce() {
        let json = #"{"types": {"a": {"kind": "x", "ttlSeconds": -1}, "b": {"body": "{nope}"}}}"#
        do {
            _ = try RulesTable.load(json: Array(json.utf8))
            Issue.record("expected problems")
        } catch {
            #expect(error.problems.map(\.path) == ["types.a.kind", "types.a.ttlSeconds", "types.b.body"])
        }
    }

    @Test func templatesRenderTheirPlaceholders() throws {
        let template = try Template("{sender.nickname} → {room.name} ({type})")
        #expect(template.render { $0.rawValue.uppercased() } == "SENDER.NICKNAME → ROOM.NAME (TYPE)")
        #expect(template.uses(.roomName))
        #expect(!template.uses(.content))
    }
}
