import CSHA256Extensions

/// SHA-256 (FIPS 180-4), for deterministic ids and token hashes; not for secrets' comparison. Blocks are compressed
/// with the x86 SHA extensions where the CPU has them (`CSHA256Extensions`), by portable Swift elsewhere.
public enum SHA256 {
    /// The 32-byte digest of `message`.
    public static func hash(_ message: some Collection<UInt8>) -> [UInt8] {
        if let digest = message.withContiguousStorageIfAvailable({ digest($0) }) { return digest }
        return Array(message).withUnsafeBufferPointer { digest($0) }
    }

    /// The 32-byte digest of `bytes`. Not generic, so that callers in other modules hash in place instead of
    /// through `hash(_:)`'s unspecialized protocol calls.
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBufferPointer { digest($0) }
    }

    /// The 32-byte digest of `text`'s UTF-8 bytes, read where they lie (a native string's are contiguous).
    public static func hash(utf8 text: String) -> [UInt8] {
        var text = text
        return text.withUTF8 { digest($0) }
    }

    /// The lowercase hex digest of `text`'s UTF-8 bytes.
    public static func hexDigest(_ text: String) -> String {
        hex(hash(utf8: text))
    }

    /// The lowercase hex digest of `bytes`.
    public static func hexDigest(_ bytes: some Collection<UInt8>) -> String {
        hex(hash(bytes))
    }

    /// `sha256:<hex>` of a device token, the form receipts and logs carry instead of the token.
    public static func tokenHash(_ token: String) -> String {
        hex(hash(utf8: token), prefix: "sha256:")
    }

    /// `bytes` as lowercase hex digits, two a byte, after `prefix`; written into the string's own storage.
    public static func hex(_ bytes: some Collection<UInt8>, prefix: StaticString = "") -> String {
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: prefix.utf8CodeUnitCount + 2 * bytes.count) { text in
            var count = 0
            for index in 0..<prefix.utf8CodeUnitCount {
                text[count] = prefix.utf8Start[index]
                count += 1
            }
            for byte in bytes {
                text[count] = digits.utf8Start[Int(byte >> 4)]
                text[count + 1] = digits.utf8Start[Int(byte & 0x0F)]
                count += 2
            }
            return count
        }
    }

    /// The eight working words.
    private struct State {
        var words: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
            0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
        )
    }

    /// Whether this CPU compresses blocks with the SHA extensions.
    static let hasSHAExtensions = sha256_extensions_available() != 0

    /// Hashes the message's whole blocks where they lie, then its tail with the padding and the bit length (one or
    /// two blocks) from a small buffer; no allocation but the digest's. `portable` compresses in Swift even where
    /// the CPU has the SHA extensions (tests compare the two).
    static func digest(_ message: UnsafeBufferPointer<UInt8>, portable: Bool = false) -> [UInt8] {
        var state = State()
        let extensions = hasSHAExtensions && !portable
        let wholeBlocks = message.count / 64
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { tail in
            tail.initialize(repeating: 0)
            let rest = message.count - wholeBlocks * 64
            for index in 0..<rest { tail[index] = message[wholeBlocks * 64 + index] }
            tail[rest] = 0x80
            let length = rest < 56 ? 64 : 128
            let bitLength = UInt64(message.count) &* 8
            for index in 0..<8 {
                tail[length - 1 - index] = UInt8(truncatingIfNeeded: bitLength >> (8 * UInt64(index)))
            }
            func compress(_ blocks: UnsafeBufferPointer<UInt8>) {
                guard extensions else { return compressPortably(&state, blocks) }
                withUnsafeMutableBytes(of: &state.words) { words in
                    guard let words = words.baseAddress?.assumingMemoryBound(to: UInt32.self),
                        let start = blocks.baseAddress
                    else { return }
                    sha256_extensions_compress(words, start, blocks.count / 64)
                }
            }
            compress(UnsafeBufferPointer(rebasing: message[0..<(wholeBlocks * 64)]))
            compress(UnsafeBufferPointer(rebasing: tail[0..<length]))
        }
        let (a, b, c, d, e, f, g, h) = state.words
        return [UInt8](unsafeUninitializedCapacity: 32) { digest, count in
            for (index, word) in [a, b, c, d, e, f, g, h].enumerated() {
                digest[4 * index] = UInt8(truncatingIfNeeded: word >> 24)
                digest[4 * index + 1] = UInt8(truncatingIfNeeded: word >> 16)
                digest[4 * index + 2] = UInt8(truncatingIfNeeded: word >> 8)
                digest[4 * index + 3] = UInt8(truncatingIfNeeded: word)
            }
            count = 32
        }
    }

    /// The 64-byte blocks of `blocks` into `state`, in Swift.
    private static func compressPortably(_ state: inout State, _ blocks: UnsafeBufferPointer<UInt8>) {
        roundConstants.withUnsafeBufferPointer { constants in
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
                for start in stride(from: 0, to: blocks.count, by: 64) {
                    compress(&state, UnsafeBufferPointer(rebasing: blocks[start..<(start + 64)]), schedule, constants)
                }
            }
        }
    }

    /// One 64-byte block into `state`: the schedule, then the 64 rounds eight at a time, each round naming the
    /// working words in its turn instead of moving all eight.
    private static func compress(
        _ state: inout State, _ block: UnsafeBufferPointer<UInt8>, _ schedule: UnsafeMutableBufferPointer<UInt32>,
        _ constants: UnsafeBufferPointer<UInt32>
    ) {
        for index in 0..<16 {
            let offset = index * 4
            schedule[index] =
                UInt32(block[offset]) << 24 | UInt32(block[offset + 1]) << 16 | UInt32(block[offset + 2]) << 8
                | UInt32(block[offset + 3])
        }
        for index in 16..<64 {
            let s0 = rotate(schedule[index - 15], 7) ^ rotate(schedule[index - 15], 18) ^ (schedule[index - 15] >> 3)
            let s1 = rotate(schedule[index - 2], 17) ^ rotate(schedule[index - 2], 19) ^ (schedule[index - 2] >> 10)
            schedule[index] = schedule[index - 16] &+ s0 &+ schedule[index - 7] &+ s1
        }
        var (a, b, c, d, e, f, g, h) = state.words
        for index in stride(from: 0, to: 64, by: 8) {
            round(a, b, c, &d, e, f, g, &h, constants[index] &+ schedule[index])
            round(h, a, b, &c, d, e, f, &g, constants[index + 1] &+ schedule[index + 1])
            round(g, h, a, &b, c, d, e, &f, constants[index + 2] &+ schedule[index + 2])
            round(f, g, h, &a, b, c, d, &e, constants[index + 3] &+ schedule[index + 3])
            round(e, f, g, &h, a, b, c, &d, constants[index + 4] &+ schedule[index + 4])
            round(d, e, f, &g, h, a, b, &c, constants[index + 5] &+ schedule[index + 5])
            round(c, d, e, &f, g, h, a, &b, constants[index + 6] &+ schedule[index + 6])
            round(b, c, d, &e, f, g, h, &a, constants[index + 7] &+ schedule[index + 7])
        }
        let old = state.words
        state.words = (
            old.0 &+ a, old.1 &+ b, old.2 &+ c, old.3 &+ d, old.4 &+ e, old.5 &+ f, old.6 &+ g, old.7 &+ h
        )
    }

    /// One round: `d` gains the round's first sum, `h` becomes the new `a`.
    @inline(__always)
    private static func round(
        _ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: inout UInt32, _ e: UInt32, _ f: UInt32, _ g: UInt32,
        _ h: inout UInt32, _ constantAndWord: UInt32
    ) {
        let s1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)
        let choice = (e & f) ^ (~e & g)
        let temp1 = h &+ s1 &+ choice &+ constantAndWord
        let s0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)
        let majority = (a & b) ^ (a & c) ^ (b & c)
        d = d &+ temp1
        h = temp1 &+ s0 &+ majority
    }

    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value >> count) | (value << (32 - count))
    }

    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]
}
