import Essentials
import PushPipeline

/// `--skip-delivered`: the device sends the receipts topic already has an outcome for that must not be
/// repeated: `delivered` ones, and `invalid_token` ones (the token is dead) but the suspect ones, which a
/// misconfiguration caused (`TokenInvalidationGuard`): re-driving those is what a replay after the fix is for. Pure.
///
/// Keyed by message id and token hash (never the raw token); about 150 bytes an entry.
public struct DeliveredSends: Sendable {
    /// What a receipt said of a send.
    public enum Outcome: Sendable, Equatable {
        case delivered
        case invalidToken
    }

    private var outcomes: [ByteID: Outcome] = [:]

    public init() {}

    public var count: Int { outcomes.count }

    /// Takes one receipt's JSON into account; receipts of other statuses, suspect ones (`"suspect": true`) and
    /// non-receipts are ignored.
    public mutating func add(messageId: String, tokenHash: String, status: String, suspect: Bool = false) {
        let outcome: Outcome
        switch status {
        case "delivered": outcome = .delivered
        case "invalid_token" where !suspect: outcome = .invalidToken
        default: return
        }
        outcomes[Self.key(messageId, tokenHash)] = outcome
    }

    /// What the receipts said of sending `messageId` to the token with `tokenHash`, if anything that counts.
    public func outcome(messageId: String, tokenHash: String) -> Outcome? {
        outcomes[Self.key(messageId, tokenHash)]
    }

    /// Message ids are compared as bytes, as every id is.
    private static func key(_ messageId: String, _ tokenHash: String) -> ByteID {
        ByteID(messageId + "\u{0}" + tokenHash)
    }
}
