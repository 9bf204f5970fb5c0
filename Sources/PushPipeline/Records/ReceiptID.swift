import Essentials
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
        // Each part is prefixed with its length in UTF-8 bytes, so no choice of texts makes two sends one name:
        // `receipt|<n>:<messageId>|<n>:<userId>|<n>:<platform>|<n>:<tokenHash>|<n>:<attempts>|<n>:run:<id>` (or
        // `…|4:live`). Written as bytes into a temporary buffer: it runs for every receipt. Past the texts, the name
        // takes at most 170 bytes: "receipt", six `|<length>:` of at most 22, "run:" and the attempts' 20 digits.
        let texts =
            messageId.utf8.count + device.userId.utf8.count + device.platform.utf8.count + device.tokenHash.utf8.count
            + (replayRunId?.utf8.count ?? 0)
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: texts + 170) { buffer in
            var name = NameWriter(buffer: buffer)
            name.append(literal: "receipt")
            name.part(messageId)
            name.part(device.userId)
            name.part(device.platform)
            name.part(device.tokenHash)
            name.part(String(attempts))
            if let replayRunId {
                name.part(replayRunId, prefix: "run:")
            } else {
                name.part("live")
            }
            return DeterministicUUID.make(fromUTF8: UnsafeBufferPointer(rebasing: buffer[..<name.count]))
        }
    }

    /// Writes a name's bytes one after the other into a buffer sized for them.
    private struct NameWriter {
        let buffer: UnsafeMutableBufferPointer<UInt8>
        var count = 0

        mutating func append(literal text: StaticString) {
            append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }

        mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
            count = buffer[count...].initialize(fromContentsOf: bytes)
        }

        /// Appends `text`'s UTF-8 bytes, read in place where the string is native (a copy of its view would retain it).
        mutating func append(_ text: String) {
            text.withUTF8Bytes { append($0) }
        }

        /// Appends `|<length>:<prefix><part>`, the length counting the UTF-8 bytes of `prefix` and `part`.
        mutating func part(_ part: String, prefix: StaticString = "") {
            append(literal: "|")
            append(String(prefix.utf8CodeUnitCount + part.utf8.count))
            append(literal: ":")
            append(literal: prefix)
            append(part)
        }
    }
}
