import Essentials

/// Loads a rules table from JSON, reporting every problem at once, each with its path and reason.
///
/// Format: `{"anonymousName": "…", "defaultLocale": "en", "defaults": RULE, "types": {"text": RULE, …},
/// "unknownType": {"policy": "fallback" | "skip" | "deadLetter", "rule": RULE}}`; each type's rule starts from
/// `defaults`; a rule's `title` and `body` are a template or an object of language tag → template that has a text
/// for `defaultLocale`. See `schemas/rules.schema.json` and `docs/payloads.md`.
extension RulesTable {
    /// Parses and validates a rules file.
    public static func load(json bytes: [UInt8]) throws(RulesError) -> RulesTable {
        let root: JSONValue
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            throw RulesError([.init(path: error.path, reason: error.description)])
        }
        var loader = RulesLoader()
        let table = loader.table(root)
        guard let table, loader.problems.isEmpty else { throw RulesError(loader.problems) }
        return table
    }
}

private struct RulesLoader {
    var problems: [RulesError.Problem] = []
    /// The table's `defaultLocale`, read before any rule so that every localized text can be checked against it.
    var defaultLocale = LanguageTag.english

    mutating func problem(_ path: String, _ reason: String) {
        problems.append(.init(path: path, reason: reason))
    }

    mutating func members(_ value: JSONValue, at path: String, allowed: [String]) -> [JSONMember]? {
        guard case .object(let members) = value else {
            problem(path, "must be an object, not \(value.typeName)")
            return nil
        }
        for member in members where !allowed.contains(member.key) {
            problem(join(path, member.key), "unknown key (allowed: \(allowed.joined(separator: ", ")))")
        }
        return members
    }

    func join(_ path: String, _ key: String) -> String {
        path.isEmpty ? key : "\(path).\(key)"
    }

    mutating func table(_ root: JSONValue) -> RulesTable? {
        guard
            let members = members(
                root, at: "", allowed: ["anonymousName", "defaultLocale", "defaults", "types", "unknownType"])
        else {
            return nil
        }
        let value = { (key: String) in members.last { $0.key == key }?.value }
        var anonymousName = "Someone"
        if let name = value("anonymousName") {
            if let text = nonEmptyString(name, at: "anonymousName") { anonymousName = text }
        }
        if let locale = value("defaultLocale"), let text = nonEmptyString(locale, at: "defaultLocale") {
            if let tag = LanguageTag(text) {
                defaultLocale = tag
            } else {
                problem("defaultLocale", LanguageTag.malformed(text))
            }
        }
        var defaults = PushRule()
        if let defaultsValue = value("defaults") { defaults = rule(defaultsValue, at: "defaults", base: defaults) }
        var types: [String: PushRule] = [:]
        if let typesValue = value("types") {
            if case .object(let typeMembers) = typesValue {
                for member in typeMembers {
                    let path = join("types", member.key)
                    if member.key.isEmpty { problem(path, "type name must not be empty") }
                    types[member.key] = rule(member.value, at: path, base: defaults)
                }
            } else {
                problem("types", "must be an object, not \(typesValue.typeName)")
            }
        } else {
            problem("types", "required")
        }
        let unknownType = unknownTypePolicy(value("unknownType"), defaults: defaults)
        return RulesTable(
            types: types, unknownType: unknownType, anonymousName: anonymousName, defaultLocale: defaultLocale)
    }

    mutating func unknownTypePolicy(_ value: JSONValue?, defaults: PushRule) -> RulesTable.UnknownTypePolicy {
        guard let value else { return .fallback(defaults) }
        guard let members = members(value, at: "unknownType", allowed: ["policy", "rule"]) else { return .skip }
        let rule = members.last { $0.key == "rule" }.map { self.rule($0.value, at: "unknownType.rule", base: defaults) }
        switch members.last(where: { $0.key == "policy" })?.value {
        case .string("fallback")?: return .fallback(rule ?? defaults)
        case .string("skip")?:
            if rule != nil { problem("unknownType.rule", "only allowed with policy \"fallback\"") }
            return .skip
        case .string("deadLetter")?:
            if rule != nil { problem("unknownType.rule", "only allowed with policy \"fallback\"") }
            return .deadLetter
        case nil:
            return .fallback(rule ?? defaults)
        case let other?:
            problem("unknownType.policy", "must be \"fallback\", \"skip\" or \"deadLetter\", not \(describe(other))")
            return .skip
        }
    }

    func describe(_ value: JSONValue) -> String {
        if case .string(let text) = value { return JSONWriter.quoted(text) }
        return value.typeName
    }

    mutating func nonEmptyString(_ value: JSONValue, at path: String) -> String? {
        guard case .string(let text) = value else {
            problem(path, "must be a string, not \(value.typeName)")
            return nil
        }
        guard !text.isEmpty else {
            problem(path, "must not be empty")
            return nil
        }
        return text
    }

    mutating func template(_ value: JSONValue, at path: String) -> Template? {
        guard let text = nonEmptyString(value, at: path) else { return nil }
        do {
            return try Template(text)
        } catch {
            problem(path, error.reason)
            return nil
        }
    }

    /// A template, or an object of language tag → template with a text for the default locale.
    mutating func localizedTemplate(_ value: JSONValue, at path: String) -> LocalizedTemplate? {
        guard case .object(let members) = value else { return template(value, at: path).map { .universal($0) } }
        var templates: [LanguageTag: Template] = [:]
        let earlierProblems = problems.count
        for member in members {
            let at = join(path, member.key)
            guard let tag = LanguageTag(member.key) else {
                problem(at, LanguageTag.malformed(member.key))
                continue
            }
            if templates[tag] != nil { problem(at, "a second text for \(tag)") }
            templates[tag] = template(member.value, at: at)
        }
        // A broken entry is reported as itself, not also as a missing default.
        guard problems.count == earlierProblems else { return nil }
        let localized = LocalizedTemplate.localized(templates)
        guard localized.template(preferring: [defaultLocale]) != nil else {
            problem(path, "no text for the default locale \(defaultLocale) (defaultLocale)")
            return nil
        }
        return localized
    }

    /// A string, or `null` to switch the option off.
    mutating func optionalString(_ value: JSONValue, at path: String) -> String?? {
        if value == .null { return .some(nil) }
        return nonEmptyString(value, at: path).map { .some($0) }
    }

    mutating func bool(_ value: JSONValue, at path: String) -> Bool? {
        guard case .bool(let flag) = value else {
            problem(path, "must be true or false, not \(value.typeName)")
            return nil
        }
        return flag
    }

    mutating func choice<Choice: RawRepresentable<String> & CaseIterable>(
        _ value: JSONValue, at path: String, as: Choice.Type
    ) -> Choice? {
        if case .string(let text) = value, let choice = Choice(rawValue: text) { return choice }
        let names = Choice.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        problem(path, "must be one of \(names), not \(describe(value))")
        return nil
    }

    static let ruleKeys = [
        "kind", "locKey", "locArgs", "title", "body", "sound", "clickAction", "icon", "collapseKey", "threadId",
        "category", "mutableContent", "priority", "ttlSeconds", "interruptionLevel", "hideContent",
        "forwardPayload",
    ]
    static let interruptionLevels = ["passive", "active", "time-sensitive", "critical"]
    /// FCM's and APNs' longest time to live: 28 days.
    static let maximumTimeToLive = 2_419_200

    mutating func rule(_ value: JSONValue, at path: String, base: PushRule) -> PushRule {
        var rule = base
        guard let members = members(value, at: path, allowed: Self.ruleKeys) else { return rule }
        for member in members {
            let at = join(path, member.key)
            let value = member.value
            switch member.key {
            case "kind": choice(value, at: at, as: PushRule.Kind.self).map { rule.kind = $0 }
            case "locKey": template(value, at: at).map { rule.locKey = $0 }
            case "locArgs":
                guard case .array(let elements) = value else {
                    problem(at, "must be an array of templates, not \(value.typeName)")
                    continue
                }
                rule.locArgs = elements.enumerated().compactMap { template($0.element, at: "\(at)[\($0.offset)]") }
            case "title": rule.title = value == .null ? nil : localizedTemplate(value, at: at)
            case "body": rule.body = value == .null ? nil : localizedTemplate(value, at: at)
            case "collapseKey": rule.collapseKey = value == .null ? nil : template(value, at: at)
            case "threadId": rule.threadID = value == .null ? nil : template(value, at: at)
            case "sound": optionalString(value, at: at).map { rule.sound = $0 }
            case "clickAction": optionalString(value, at: at).map { rule.clickAction = $0 }
            case "icon": optionalString(value, at: at).map { rule.icon = $0 }
            case "category": optionalString(value, at: at).map { rule.category = $0 }
            case "interruptionLevel":
                guard let level = optionalString(value, at: at) else { continue }
                if let level, !Self.interruptionLevels.contains(level) {
                    problem(at, "must be one of \(Self.interruptionLevels.joined(separator: ", ")) or null")
                } else {
                    rule.interruptionLevel = level
                }
            case "mutableContent": bool(value, at: at).map { rule.mutableContent = $0 }
            case "hideContent": bool(value, at: at).map { rule.hidesContent = $0 }
            case "forwardPayload": bool(value, at: at).map { rule.forwardsPayload = $0 }
            case "priority": choice(value, at: at, as: PushRule.Priority.self).map { rule.priority = $0 }
            case "ttlSeconds":
                guard case .number(let literal) = value, let seconds = Int(literal),
                    (0...Self.maximumTimeToLive).contains(seconds)
                else {
                    problem(at, "must be a whole number of seconds from 0 to \(Self.maximumTimeToLive)")
                    continue
                }
                rule.timeToLiveSeconds = seconds
            default: continue
            }
        }
        return rule
    }
}
