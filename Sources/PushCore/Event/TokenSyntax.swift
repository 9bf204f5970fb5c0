import Essentials

/// Syntax checks for device tokens and APNs topics, per platform.
enum TokenSyntax {
    /// Why `token` is not a valid token for `platform`, or `nil` when it is. Never quotes the token.
    static func problem(with token: String, on platform: Platform) -> String? {
        if platform == .web {
            do {
                _ = try WebPushSubscription(token: token)
                return nil
            } catch {
                return error.message
            }
        }
        // The bytes read where they lie (a parsed token is a native string): a loop over a buffer, not the view's
        // iterator.
        return token.withUTF8Bytes { utf8 in
            switch platform {
            case .apns, .apnsVoip:
                guard (64...200).contains(utf8.count), utf8.count % 2 == 0, utf8.allSatisfy(isHexDigit) else {
                    return "must be an even number (64 to 200) of hexadecimal characters"
                }
                return nil
            case .fcm, .web:
                guard (1...4096).contains(utf8.count), utf8.allSatisfy(isPrintable) else {
                    return "must be 1 to 4096 printable ASCII characters"
                }
                return nil
            }
        }
    }

    /// Whether `topic` looks like a bundle id: 1 to 255 printable ASCII characters.
    static func isTopic(_ topic: String) -> Bool {
        (1...255).contains(topic.utf8.count) && topic.utf8.allSatisfy(isPrintable)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
            UInt8(ascii: "A")...UInt8(ascii: "F"):
            true
        default: false
        }
    }

    private static func isPrintable(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F
    }
}
