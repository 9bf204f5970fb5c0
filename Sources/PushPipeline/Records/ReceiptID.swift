import PushCore

/// The stable id of one outcome of one device send, written in the receipt (`receiptId`) and as the receipt
/// record's `x-receipt-id` header, so a reader can tell a copy from a new send. Pure.
///
/// At-least-once delivery writes a receipt again when a crash or a rebalance repeats sends whose input offset
/// was not committed yet; such a copy describes the same attempt of the same send and gets the same id. The id
/// is a name-based UUID (as the `apns-id` is) of the message id, the device (user, platform, token hash), the
/// attempt that gave the outcome and the replay run: a send that took another attempt, and every send of a
/// replay run, get ids of their own. No time, worker or provider answer takes part: those differ between copies.
public enum ReceiptID {
    /// The Kafka header that carries the id on the receipt record.
    public static let header = "x-receipt-id"

    /// The id of the receipt of `device`'s send of `messageId` that ended on attempt `attempts` (0: not sent),
    /// in replay run `replayRunId` (`nil`: the live worker).
    public static func make(messageId: String, device: DeviceTarget, attempts: Int, replayRunId: String?) -> String {
        // Each part is prefixed with its length in UTF-8 bytes, so no choice of texts makes two sends one name.
        let parts = [
            messageId, device.userId, device.platform, device.tokenHash, String(attempts),
            replayRunId.map { "run:" + $0 } ?? "live",
        ]
        return DeterministicUUID.make(from: "receipt" + parts.map { "|\($0.utf8.count):\($0)" }.joined())
    }
}
