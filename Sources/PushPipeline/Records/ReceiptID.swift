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
        var name: [UInt8] = []
        return make(messageId: messageId, device: device, attempts: attempts, replayRunId: replayRunId, name: &name)
    }

    /// `make`, its name written into `name`, a buffer the caller reuses from one receipt to the next.
    static func make(
        messageId: String, device: DeviceTarget, attempts: Int, replayRunId: String?, name: inout [UInt8]
    ) -> String {
        // Each part is prefixed with its length in UTF-8 bytes, so no choice of texts makes two sends one name:
        // `receipt|<n>:<messageId>|<n>:<userId>|<n>:<platform>|<n>:<tokenHash>|<n>:<attempts>|<n>:run:<id>` (or
        // `…|4:live`). Written as bytes into one buffer: it runs for every receipt.
        name.removeAll(keepingCapacity: true)
        name.reserveCapacity(
            64 + messageId.utf8.count + device.userId.utf8.count + device.platform.utf8.count
                + device.tokenHash.utf8.count + (replayRunId?.utf8.count ?? 0))
        name.append(contentsOf: "receipt".utf8)
        append(messageId, to: &name)
        append(device.userId, to: &name)
        append(device.platform, to: &name)
        append(device.tokenHash, to: &name)
        append(String(attempts), to: &name)
        if let replayRunId {
            append(replayRunId, to: &name, prefix: "run:")
        } else {
            append("live", to: &name)
        }
        return DeterministicUUID.make(fromUTF8: name)
    }

    /// Appends `|<length>:<prefix><part>`, the length counting the UTF-8 bytes of `prefix` and `part`.
    private static func append(_ part: String, to name: inout [UInt8], prefix: StaticString = "") {
        name.append(UInt8(ascii: "|"))
        name.append(contentsOf: String(prefix.utf8CodeUnitCount + part.utf8.count).utf8)
        name.append(UInt8(ascii: ":"))
        name.append(contentsOf: UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount))
        name.append(contentsOf: part.utf8)
    }
}
