public import PushCore

/// The lines of a device import (`push-worker devices import`): a migration from another token store into the
/// registry. Pure: each line becomes a subscription, checked as the followers check registry records, or the reason
/// it is skipped.
public enum DeviceImport {
    /// The input formats.
    public enum Format: String, Sendable, CaseIterable {
        /// A header line naming the columns (`appID`, `clientId`, `type`, `token`, `deviceId` required; `sandbox`,
        /// `topic`, `locale` optional, in any order), then one subscription per line. Fields are not quoted.
        case csv
        /// One subscription record value (`schemas/subscription.schema.json`) per line.
        case jsonl
    }

    /// The columns a CSV header must name.
    public static let requiredColumns = ["appID", "clientId", "type", "token", "deviceId"]
    static let optionalColumns = ["sandbox", "topic", "locale"]

    /// The CSV columns of `header`, by name; the error names what is missing or unknown.
    public static func columns(csvHeader header: Substring) -> Result<[String: Int], RegistryRecordError> {
        let names = header.split(separator: ",", omittingEmptySubsequences: false).map {
            trimmed($0)
        }
        var columns: [String: Int] = [:]
        for (index, name) in names.enumerated() {
            guard requiredColumns.contains(name) || optionalColumns.contains(name) else {
                return .failure(RegistryRecordError(.badValue, "unknown column '\(name)'"))
            }
            columns[name] = index
        }
        let missing = requiredColumns.filter { columns[$0] == nil }
        guard missing.isEmpty else {
            return .failure(RegistryRecordError(.badValue, "missing column \(missing.joined(separator: ", "))"))
        }
        return .success(columns)
    }

    /// The subscription of one CSV line, given the header's `columns`.
    public static func subscription(csvLine line: Substring, columns: [String: Int]) -> Result<
        Subscription, RegistryRecordError
    > {
        let fields = line.split(separator: ",", omittingEmptySubsequences: false).map {
            trimmed($0)
        }
        guard fields.count == columns.count else {
            return .failure(RegistryRecordError(.badValue, "\(fields.count) fields, the header has \(columns.count)"))
        }
        func field(_ name: String) -> String? {
            columns[name].flatMap { fields[$0].isEmpty ? nil : fields[$0] }
        }
        guard let typeName = field("type"), let type = SubscriptionType(rawValue: typeName) else {
            return .failure(RegistryRecordError(.badValue, "type: must be one of ios, ios-voip, android, fcm, web"))
        }
        guard let sandbox = ["", "true", "false"].firstIndex(of: field("sandbox") ?? "").map({ $0 == 1 }) else {
            return .failure(RegistryRecordError(.badValue, "sandbox: must be true or false"))
        }
        let candidate = Subscription(
            appID: field("appID") ?? "", clientID: field("clientId") ?? "", type: type, token: field("token") ?? "",
            deviceID: field("deviceId") ?? "", sandbox: sandbox, topic: field("topic"),
            locale: field("locale").flatMap { LanguageTag(lenient: $0) })
        return checked(candidate.json(), key: candidate.key)
    }

    /// The subscription of one JSON line.
    public static func subscription(jsonLine line: Substring) -> Result<Subscription, RegistryRecordError> {
        let bytes = Array(line.utf8)
        guard let value = try? JSONParser.parse(bytes) else {
            return .failure(RegistryRecordError(.badValue, "not a JSON object"))
        }
        guard let typeName = value["type"]?.stringValue, let type = SubscriptionType(rawValue: typeName) else {
            return .failure(RegistryRecordError(.badValue, "type: must be one of ios, ios-voip, android, fcm, web"))
        }
        let key = DeviceKey(
            appID: value["appID"]?.stringValue ?? "", clientID: value["clientId"]?.stringValue ?? "", type: type,
            deviceID: value["deviceId"]?.stringValue ?? "")
        return checked(bytes, key: key)
    }

    private static func trimmed(_ field: Substring) -> String {
        let isPadding = { (character: Character) in character == " " || character == "\r" }
        return String(field.drop(while: isPadding).reversed().drop(while: isPadding).reversed())
    }

    /// The value decoded under its own key, as a follower would.
    private static func checked(_ value: [UInt8], key: DeviceKey) -> Result<Subscription, RegistryRecordError> {
        do {
            guard
                case .put(_, let subscription) = try RegistryRecordDecoder.subscription(
                    key: Array(key.description.utf8), value: value)
            else { return .failure(RegistryRecordError(.badValue, "not a subscription")) }
            return .success(subscription)
        } catch {
            return .failure(error)
        }
    }
}
