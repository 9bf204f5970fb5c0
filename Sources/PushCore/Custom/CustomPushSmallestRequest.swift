extension CustomPushRequestBuilder {
    /// The members of a custom push that are never cut to fit, each with how to leave it out: what can keep even the
    /// smallest request over the limit.
    private static let uncutMembers: [(path: String, leaveOut: @Sendable (inout CustomPush) -> Void)] = [
        (
            "payload.alert.loc-args",
            { push in
                if case .localized(let key, _)? = push.payload.alert {
                    push.payload.alert = .localized(key: key, arguments: [])
                }
            }
        ),
        (
            "payload.alert.loc-key",
            { push in
                if case .localized(_, let arguments)? = push.payload.alert {
                    push.payload.alert = .localized(key: "", arguments: arguments)
                }
            }
        ),
        ("payload.sound", { $0.payload.sound = nil }),
        ("payload.icon", { $0.payload.icon = nil }),
        ("payload.collapseKey", { $0.payload.collapseKey = nil }),
        ("payload.type", { $0.payload.type = nil }),
        ("id", { $0.id = "" }),
    ]

    /// Why `push` cannot fit `platform`'s limit for any device: even cut as far as `outcome(for:device:now:)` cuts
    /// it (the forwarded payload left out, every text cut to nothing; on FCM with a one-character token and no time
    /// to live), its request is over the limit. The error names the member whose absence would save the most bytes.
    /// `nil` when the push fits some device of `platform`.
    public static func tooLarge(_ push: CustomPush, on platform: Platform) -> EventError? {
        let limit = PayloadLimit.bytes(for: platform)
        let size = smallestRequestBytes(push, on: platform)
        guard size > limit else { return nil }
        let largest = uncutMembers.max { first, second in
            savedBytes(first.leaveOut, push, on: platform, size: size)
                < savedBytes(second.leaveOut, push, on: platform, size: size)
        }
        return EventError(
            .payloadTooLarge, path: largest?.path ?? "payload",
            "makes the \(platform.rawValue) request \(size) bytes with every text cut, over its limit of \(limit)")
    }

    private static func savedBytes(
        _ leaveOut: (inout CustomPush) -> Void, _ push: CustomPush, on platform: Platform, size: Int
    ) -> Int {
        var smaller = push
        leaveOut(&smaller)
        return size - smallestRequestBytes(smaller, on: platform)
    }

    private static func smallestRequestBytes(_ push: CustomPush, on platform: Platform) -> Int {
        body(push, platform: platform, token: "x", timeToLive: 0, trim: Trim(includesPayload: false, textLimit: 0))
            .count
    }
}
