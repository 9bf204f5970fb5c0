import Foundation

/// A segment of a JSON Web Token.
public enum JWTSegment {
    /// The text of a base64url segment, or nil when it is not base64url.
    public static func text(_ segment: String) -> String? {
        var base64 = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).map { String(decoding: $0, as: UTF8.self) }
    }
}
