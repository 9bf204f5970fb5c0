import Glibc
import Sockets
import Testing

/// Numeric hosts resolve without a name lookup, so these run without a network.
@Suite struct SocketAddressTests {
    @Test(arguments: ["127.0.0.1", "0.0.0.0", "::1", "::", "fe80::1"])
    func numericHostsAreRecognised(host: String) {
        #expect(SocketAddress.isNumericHost(host))
    }

    @Test(arguments: ["localhost", "api.push.apple.com", "", "127.0.0.1:80", "[::1]", "256.1.1.1"])
    func namesAndMalformedAddressesAreNotNumeric(host: String) {
        #expect(!SocketAddress.isNumericHost(host))
    }

    @Test func anIPv4HostResolvesToOneAddressOfItsFamilyAndPort() throws {
        for use in [SocketAddress.Use.connect, .listen] {
            let addresses = try SocketAddress.resolve(host: "127.0.0.1", port: 8443, for: use).get()
            #expect(addresses.count == 1)
            #expect(addresses[0].family == AF_INET)
            #expect(addresses[0].bytes.count == MemoryLayout<sockaddr_in>.size)
            // sin_port, in network byte order, after the two bytes of sin_family.
            #expect(Array(addresses[0].bytes[2...3]) == [0x20, 0xFB])
        }
    }

    @Test func theIPAddressBytesAreReadFromEitherFamily() throws {
        let v4 = try SocketAddress.resolve(host: "192.0.2.7", port: 443, for: .connect).get()
        #expect(v4.first?.ipBytes == [192, 0, 2, 7])
        let v6 = try SocketAddress.resolve(host: "2001:db8::9", port: 443, for: .listen).get()
        #expect(v6.first?.ipBytes == [0x20, 0x01, 0x0D, 0xB8] + Array(repeating: 0, count: 11) + [9])
        #expect(SocketAddress(family: AF_UNIX, bytes: [1, 0]).ipBytes == nil)
    }

    @Test func anIPv6HostResolvesToAnIPv6Address() throws {
        let addresses = try SocketAddress.resolve(host: "::1", port: 9090, for: .listen).get()
        #expect(addresses.map(\.family) == [AF_INET6])
        #expect(addresses[0].bytes.count == MemoryLayout<sockaddr_in6>.size)
    }

    @Test func aNameIsNotLookedUpForListening() {
        guard case .failure(let error) = SocketAddress.resolve(host: "localhost", port: 80, for: .listen) else {
            Issue.record("a host name resolved for listening")
            return
        }
        #expect(!error.reason.isEmpty)
    }
}
