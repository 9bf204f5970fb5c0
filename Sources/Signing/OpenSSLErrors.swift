internal import COpenSSL

/// Drains OpenSSL's thread-local error queue into one line; its strings name library, function and reason only.
func drainOpenSSLErrors() -> String {
    var reasons: [String] = []
    while case let code = ERR_get_error(), code != 0 {
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    return reasons.isEmpty ? "no OpenSSL detail" : reasons.joined(separator: "; ")
}
