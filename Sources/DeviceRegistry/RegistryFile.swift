public import PushCore

/// A file of registry record values, one JSON object a line (`render --devices`): subscriptions (they have `type`)
/// and client settings (the others), each checked as the followers check the topics' records and applied in order,
/// so a later line of the same key replaces an earlier one. Pure apart from the store it fills.
public enum RegistryFile {
    /// Why a line was refused: its number (from 1) and what is wrong.
    public struct LineError: Error, Sendable, Equatable, CustomStringConvertible {
        public var line: Int
        public var problem: RegistryRecordError

        public var description: String { "line \(line): \(problem)" }
    }

    /// Applies every line of `bytes` (ended by LF or CRLF) to `store`; blank lines are skipped, the first bad one
    /// (not UTF-8 included) stops the load.
    public static func load(_ bytes: [UInt8], into store: MemoryDeviceStore) throws(LineError) {
        var splitter = LineSplitter(maximumBytes: DeviceImport.maximumLineBytes)
        for line in splitter.feed(bytes) + (splitter.finish().map { [$0] } ?? []) {
            let text: String
            switch line.text {
            case .success(let decoded): text = decoded
            case .failure(let problem): throw LineError(line: line.number, problem: problem)
            }
            guard !text.allSatisfy(\.isWhitespace) else { continue }
            switch record(Substring(text)) {
            case .success(.subscription(let subscription)): store.apply(.put(subscription.key, subscription))
            case .success(.settings(let settings)): store.apply(.put(settings.key, settings))
            case .failure(let problem): throw LineError(line: line.number, problem: problem)
            }
        }
    }

    private enum Record {
        case subscription(Subscription)
        case settings(ClientSettings)
    }

    private static func record(_ line: Substring) -> Result<Record, RegistryRecordError> {
        guard let value = try? JSONParser.parse(Array(line.utf8)), case .object = value else {
            return .failure(RegistryRecordError(.badValue, "not a JSON object"))
        }
        if value["type"] != nil { return DeviceImport.subscription(jsonLine: line).map(Record.subscription) }
        let key = ClientKey(appID: value["appID"]?.stringValue ?? "", clientID: value["clientId"]?.stringValue ?? "")
        return Result { () throws(RegistryRecordError) in
            guard
                case .put(_, let settings) = try RegistryRecordDecoder.settings(
                    key: Array(key.description.utf8), value: Array(line.utf8))
            else { throw RegistryRecordError(.badValue, "not a settings record") }
            return .settings(settings)
        }
    }
}
