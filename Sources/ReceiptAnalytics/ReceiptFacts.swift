import Essentials
import Foundation
import PushCore

/// What the statistics read of one receipt. Receipts of every version decode: those written before the
/// invalid-token topic carried the raw `token` on `invalid_token` receipts, which is never read here. Pure.
public struct ReceiptFacts: Sendable, Equatable {
    /// The id every copy of the receipt shares; `nil` on receipts written before receipts had one.
    public var receiptId: String?
    public var messageId: String
    public var type: String
    public var platform: String
    public var status: String
    public var reason: String?
    public var attempts: Int?
    public var latencyMillis: Double?
    /// When the receipt was written (`sentAt`), else the Kafka record's timestamp (epoch ms).
    public var timeMillis: Int64?
    public var replayRunId: String?
    public var worker: String?
    /// `"suspect": true`: an `invalid_token` answer the worker did not act on (the misconfiguration guard).
    public var suspect: Bool

    public init(
        messageId: String, type: String, platform: String, status: String, reason: String? = nil,
        attempts: Int? = nil, latencyMillis: Double? = nil, timeMillis: Int64? = nil, replayRunId: String? = nil,
        worker: String? = nil, receiptId: String? = nil, suspect: Bool = false
    ) {
        self.receiptId = receiptId
        self.messageId = messageId
        self.type = type
        self.platform = platform
        self.status = status
        self.reason = reason
        self.attempts = attempts
        self.latencyMillis = latencyMillis
        self.timeMillis = timeMillis
        self.replayRunId = replayRunId
        self.worker = worker
        self.suspect = suspect
    }

    /// Receipt times are kept within the years 0000...9999, which RFC 3339 can write (epoch milliseconds).
    public static let earliestMillis: Int64 = -62_167_219_200_000
    public static let latestMillis: Int64 = 253_402_300_799_999

    /// The longest text kept of any field: a hostile receipt cannot make a breakdown key large.
    public static let maximumFieldLength = 200

    /// Reads a receipt's JSON value; `nil` when it is not a receipt (no string `status`, `platform`,
    /// `type` and `messageId`). `recordTimestampMillis` stands in for a missing or unreadable `sentAt`.
    public init?(json bytes: [UInt8], recordTimestampMillis: Int64?) {
        guard let value = try? JSONParser.parse(bytes), let status = value["status"]?.stringValue,
            let platform = value["platform"]?.stringValue, let type = value["type"]?.stringValue,
            let messageId = value["messageId"]?.stringValue
        else { return nil }
        let sentAt = value["sentAt"]?.stringValue.flatMap(RFC3339.parse).flatMap {
            Int64(exactly: ($0.timeIntervalSince1970 * 1000).rounded(.down))
        }
        self.init(
            messageId: Self.bounded(messageId), type: Self.bounded(type), platform: Self.bounded(platform),
            status: Self.bounded(status), reason: value["reason"]?.stringValue.map(Self.bounded),
            attempts: value["attempts"].flatMap(Self.number).flatMap { Int(exactly: $0) },
            latencyMillis: value["latencyMs"].flatMap(Self.number).flatMap { $0.isFinite && $0 >= 0 ? $0 : nil },
            timeMillis: (sentAt ?? recordTimestampMillis).map { min(max($0, Self.earliestMillis), Self.latestMillis) },
            replayRunId: value["replayRunId"]?.stringValue.map(Self.bounded),
            worker: value["worker"]?.stringValue.map(Self.bounded),
            receiptId: value["receiptId"]?.stringValue.map(Self.bounded), suspect: value["suspect"] == .bool(true))
    }

    private static func number(_ value: JSONValue) -> Double? {
        guard case .number(let text) = value else { return nil }
        return Double(text)
    }

    private static func bounded(_ text: String) -> String {
        text.utf8.count <= maximumFieldLength ? text : String(text.prefix(maximumFieldLength))
    }
}
