import Essentials
import Testing

@Suite struct PublicAddressTests {
    @Test(
        arguments: [
            ([8, 8, 8, 8], true), ([1, 1, 1, 1], true), ([100, 128, 0, 1], true), ([172, 32, 0, 1], true),
            ([0, 0, 0, 0], false), ([10, 1, 2, 3], false), ([100, 64, 0, 1], false), ([127, 0, 0, 1], false),
            ([169, 254, 169, 254], false), ([172, 16, 0, 1], false), ([192, 168, 1, 1], false),
            ([192, 0, 0, 8], false),
            ([198, 18, 0, 1], false), ([224, 0, 0, 1], false), ([255, 255, 255, 255], false),
        ] as [([UInt8], Bool)])
    func ipv4(_ bytes: [UInt8], _ isPublic: Bool) {
        #expect(PublicAddress.isPublic(v4: bytes) == isPublic)
        #expect(PublicAddress.isPublic(v6: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] + bytes) == isPublic, "mapped")
    }

    @Test func ipv6() {
        let google: [UInt8] = [0x20, 0x01, 0x48, 0x60] + Array(repeating: 0, count: 11) + [0x88]
        #expect(PublicAddress.isPublic(v6: google))
        #expect(!PublicAddress.isPublic(v6: Array(repeating: 0, count: 15) + [1]), "::1")
        #expect(!PublicAddress.isPublic(v6: Array(repeating: 0, count: 16)), "::")
        #expect(!PublicAddress.isPublic(v6: [0xFD] + Array(repeating: 0, count: 15)), "unique local")
        #expect(!PublicAddress.isPublic(v6: [0xFE, 0x80] + Array(repeating: 0, count: 14)), "link-local")
        #expect(!PublicAddress.isPublic(v6: [0xFF, 0x02] + Array(repeating: 0, count: 14)), "multicast")
    }

    @Test func anAddressOfTheWrongLengthIsNotPublic() {
        #expect(!PublicAddress.isPublic(v4: [8, 8, 8]))
        #expect(!PublicAddress.isPublic(v6: [0x20, 0x01]))
    }
}
