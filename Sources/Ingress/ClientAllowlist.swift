import Glibc

/// The client networks the ingress accepts requests from (`PUSH_INGRESS_ALLOW`), as CIDR blocks
/// (`10.0.0.0/8,2001:db8::/32`; an address alone is one host). An IPv4 client seen as an IPv4-mapped IPv6
/// address (`::ffff:a.b.c.d`) matches the IPv4 blocks.
public struct ClientAllowlist: Sendable, Equatable {
    private struct Block: Sendable, Equatable {
        var network: [UInt8]
        var prefixLength: Int
    }
    private let blocks: [Block]

    /// Why a block cannot be used; names the block.
    public struct InvalidBlock: Error, Sendable, Equatable, CustomStringConvertible {
        public var block: String
        public var reason: String
        public var description: String { "'\(block)' \(reason)" }
    }

    /// Parses comma-separated CIDR blocks; at least one.
    public init(parsing text: String) throws(InvalidBlock) {
        var blocks: [Block] = []
        for item in text.split(separator: ",") {
            let text = item.trimmingSpaces
            if text.isEmpty { continue }
            let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let address = Self.address(String(parts[0])) else {
                throw InvalidBlock(block: String(text), reason: "is not an IPv4 or IPv6 address or CIDR block")
            }
            let maximum = address.count * 8
            var prefixLength = maximum
            if parts.count == 2 {
                guard let length = Int(parts[1]), (0...maximum).contains(length) else {
                    throw InvalidBlock(block: String(text), reason: "has a prefix length outside 0-\(maximum)")
                }
                prefixLength = length
            }
            blocks.append(Block(network: address, prefixLength: prefixLength))
        }
        guard !blocks.isEmpty else { throw InvalidBlock(block: text, reason: "names no block") }
        self.blocks = blocks
    }

    /// Whether the client at `address` (4 or 16 bytes) is inside one of the blocks; an unknown (empty) address is
    /// not.
    public func allows(_ address: [UInt8]) -> Bool {
        let client = Self.unmapped(address)
        return blocks.contains { block in
            block.network.count == client.count && Self.prefix(block.prefixLength, of: client, equals: block.network)
        }
    }

    private static func prefix(_ bits: Int, of address: [UInt8], equals network: [UInt8]) -> Bool {
        for index in 0..<address.count {
            let remaining = bits - index * 8
            if remaining <= 0 { return true }
            let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
            if address[index] & mask != network[index] & mask { return false }
        }
        return true
    }

    /// `::ffff:a.b.c.d` as the 4 bytes of `a.b.c.d`; any other address as it is.
    private static func unmapped(_ address: [UInt8]) -> [UInt8] {
        guard address.count == 16, address[0..<10].allSatisfy({ $0 == 0 }), address[10] == 0xFF, address[11] == 0xFF
        else { return address }
        return Array(address[12..<16])
    }

    /// The bytes of a numeric IPv4 (4) or IPv6 (16) address, or `nil`.
    static func address(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }
}
