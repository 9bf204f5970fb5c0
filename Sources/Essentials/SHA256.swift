import CSHA256Extensions

/// SHA-256 (FIPS 180-4), for deterministic ids and token hashes; not for secrets' comparison. Blocks are compressed
/// with the x86 SHA extensions where the CPU has them (`CSHA256Extensions`), by portable Swift elsewhere.
public enum SHA256 {
    /// The 32-byte digest of `message`.
    public static func hash(_ message: some Collection<UInt8>) -> [UInt8] {
        if let digest = message.withContiguousStorageIfAvailable({ digest($0) }) { return Array(digest) }
        return Array(Array(message).withUnsafeBufferPointer { digest($0) })
    }

    /// The 32-byte digest of `bytes`. Not generic, so that callers in other modules hash in place instead of
    /// through `hash(_:)`'s unspecialized protocol calls.
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        Array(digest(of: bytes))
    }

    /// The 32-byte digest of `text`'s UTF-8 bytes, read where they lie (a native string's are contiguous).
    public static func hash(utf8 text: String) -> [UInt8] {
        Array(digest(utf8: text))
    }

    /// The digest of `bytes`, held inline (no allocation).
    public static func digest(of bytes: [UInt8]) -> Digest {
        bytes.withUnsafeBufferPointer { digest($0) }
    }

    /// The digest of the bytes `bytes` points to, held inline (no allocation).
    public static func digest(of bytes: UnsafeBufferPointer<UInt8>) -> Digest {
        digest(bytes)
    }

    /// The digest of `text`'s UTF-8 bytes, read where they lie (a native string's are contiguous) and held inline.
    public static func digest(utf8 text: String) -> Digest {
        text.withUTF8Bytes { digest($0) }
    }

    /// The lowercase hex digest of `text`'s UTF-8 bytes.
    public static func hexDigest(_ text: String) -> String {
        hex(digest(utf8: text))
    }

    /// The lowercase hex digest of `bytes`.
    public static func hexDigest(_ bytes: some Collection<UInt8>) -> String {
        hex(hash(bytes))
    }

    /// `sha256:<hex>` of a device token, the form receipts and logs carry instead of the token.
    public static func tokenHash(_ token: String) -> String {
        hex(digest(utf8: token), prefix: "sha256:")
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
    /// two blocks) from a small buffer; no allocation. `portable` compresses in Swift even where
    /// the CPU has the SHA extensions (tests compare the two).
    static func digest(_ message: UnsafeBufferPointer<UInt8>, portable: Bool = false) -> Digest {
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
        return Digest(state: state.words)
    }

    /// The 64-byte blocks of `blocks` into `state`, in Swift.
    private static func compressPortably(_ state: inout State, _ blocks: UnsafeBufferPointer<UInt8>) {
        let constants = UnsafeBufferPointer(start: sha256_round_constants(), count: 64)
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
            for start in stride(from: 0, to: blocks.count, by: 64) {
                compress(&state, UnsafeBufferPointer(rebasing: blocks[start..<(start + 64)]), schedule, constants)
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
}
