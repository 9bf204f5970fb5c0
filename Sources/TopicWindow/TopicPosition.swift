import Essentials
import Foundation
import Kafka
import KafkaTypes
import PushCore

/// A position in a topic as operators write it for `--from` / `--to`: `beginning`, `end`, an offset for every
/// partition (`1200`), offsets per partition (`0:1200,3:77`), or an RFC 3339 time. Pure.
public enum TopicPosition: Sendable, Equatable {
    case beginning
    /// The high watermark when the command starts: records written later are not read.
    case end
    case offset(Int64)
    /// Offsets of the partitions named; the others use `beginning` for `--from` and `end` for `--to`.
    case offsets([Int32: Int64])
    /// The first record at or after this time (epoch milliseconds).
    case time(epochMillis: Int64)

    /// Parses `text`; the error says what is wrong with it.
    public static func parse(_ text: String) -> Result<TopicPosition, PositionSyntaxError> {
        switch text {
        case "beginning": return .success(.beginning)
        case "end": return .success(.end)
        default: break
        }
        if let offset = Int64(text) {
            return offset >= 0 ? .success(.offset(offset)) : .failure(.init(text, "an offset is not negative"))
        }
        if text.contains(":") && !text.contains("T") {
            var offsets: [Int32: Int64] = [:]
            for item in text.split(separator: ",", omittingEmptySubsequences: false) {
                let parts = item.split(separator: ":", omittingEmptySubsequences: false)
                guard parts.count == 2, let partition = Int32(parts[0]), partition >= 0, let offset = Int64(parts[1]),
                    offset >= 0
                else { return .failure(.init(text, "'\(item)' is not PARTITION:OFFSET")) }
                guard offsets.updateValue(offset, forKey: partition) == nil else {
                    return .failure(.init(text, "partition \(partition) is named twice"))
                }
            }
            return .success(.offsets(offsets))
        }
        if let date = RFC3339.parse(text), let millis = Int64(exactly: (date.timeIntervalSince1970 * 1000).rounded()) {
            return .success(.time(epochMillis: millis))
        }
        return .failure(
            .init(text, "expected beginning, end, an offset, PARTITION:OFFSET,… or an RFC 3339 time"))
    }

    /// The offset this position names in `partition` when it is an offset (not a time), given the partition's
    /// watermarks and the default for partitions an `offsets` list leaves out; clamped to the watermarks.
    func offset(in partition: Int32, watermarks: Watermarks, unlisted: Int64) -> Int64? {
        let offset: Int64? =
            switch self {
            case .beginning: watermarks.low
            case .end: watermarks.high
            case .offset(let offset): offset
            case .offsets(let offsets): offsets[partition] ?? unlisted
            case .time: nil
            }
        return offset.map { min(max($0, watermarks.low), watermarks.high) }
    }
}

/// A `--from` / `--to` value that is not a position.
public struct PositionSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public let text: String
    public let reason: String

    public init(_ text: String, _ reason: String) {
        self.text = text
        self.reason = reason
    }

    public var description: String { "'\(text)': \(reason)" }
}
