import Ingress
import Testing

@Suite struct ClientAllowlistTests {
    @Test func addressesInsideABlockAreAllowedAndOthersNot() throws {
        let allowlist = try ClientAllowlist(parsing: "10.0.0.0/8, 192.168.1.7, 2001:db8::/32")
        #expect(allowlist.allows([10, 200, 3, 4]))
        #expect(allowlist.allows([192, 168, 1, 7]))
        #expect(!allowlist.allows([192, 168, 1, 8]))
        #expect(!allowlist.allows([11, 0, 0, 1]))
        #expect(allowlist.allows([0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 1, count: 12)))
        #expect(!allowlist.allows([0x20, 0x01, 0x0d, 0xb9] + [UInt8](repeating: 0, count: 12)))
        #expect(!allowlist.allows([]))
    }

    @Test func anIPv4MappedClientMatchesIPv4Blocks() throws {
        let allowlist = try ClientAllowlist(parsing: "10.1.0.0/16")
        #expect(allowlist.allows([UInt8](repeating: 0, count: 10) + [0xFF, 0xFF, 10, 1, 2, 3]))
    }

    @Test func prefixesThatAreNotWholeBytesAreMasked() throws {
        let allowlist = try ClientAllowlist(parsing: "172.16.0.0/12")
        #expect(allowlist.allows([172, 31, 255, 255]))
        #expect(!allowlist.allows([172, 32, 0, 0]))
        #expect(try ClientAllowlist(parsing: "0.0.0.0/0").allows([8, 8, 8, 8]))
    }

    @Test(arguments: ["", "10.0.0.0/33", "10.0.0/8", "host.example", "::/129", "10.0.0.0/x"])
    func aMalformedBlockIsRefused(text: String) {
        #expect(throws: ClientAllowlist.InvalidBlock.self) { try ClientAllowlist(parsing: text) }
    }
}
