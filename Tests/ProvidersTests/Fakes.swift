import Foundation
import HTTP2
import Providers
import Synchronization

/// A wall clock that moves only when told.
final class ManualClock: WallClock {
    private let time: Mutex<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        time = Mutex(start)
    }

    func now() -> Date { time.withLock { $0 } }

    func advance(by duration: Duration) {
        time.withLock { $0 = $0.addingTimeInterval(TimeInterval(duration.components.seconds)) }
    }
}

/// A transport that answers from a closure and records every request.
final class ScriptedTransport: HTTPTransport {
    typealias Answer = @Sendable (HTTPRequest) async throws(HTTPError) -> HTTPResponse

    private let answer: Answer
    private let recorded = Mutex<[HTTPRequest]>([])

    init(_ answer: @escaping Answer) {
        self.answer = answer
    }

    var requests: [HTTPRequest] { recorded.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        recorded.withLock { $0.append(request) }
        return try await answer(request)
    }
}

/// SplitMix64: a small seeded generator, so backoff tests are reproducible.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension HTTPResponse {
    /// A response with a JSON body.
    static func json(_ status: Int, _ body: String, headers: [HTTPHeader] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers, body: Array(body.utf8))
    }
}

extension HTTPRequest {
    /// The first value of header `name`, compared case-insensitively.
    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// Test keys made by the `openssl` command into a temporary directory (never committed).
enum TestKeys {
    static let p256 = Result { try generate(["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"]) }
    static let rsa = Result { try generate(["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"]) }

    struct GenerationFailed: Error {}

    private static func generate(_ options: [String]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("key-\(UUID().uuidString).pem").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = ["genpkey", "-out", path] + options
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw GenerationFailed() }
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    /// A service-account JSON for `tokenURI`, with a fresh RSA key.
    static func serviceAccountJSON(tokenURI: String, project: String = "demo-project") throws -> [UInt8] {
        let object: [String: String] = [
            "type": "service_account", "project_id": project, "private_key_id": "key-1",
            "private_key": try rsa.get(), "client_email": "push@\(project).iam.gserviceaccount.com",
            "token_uri": tokenURI,
        ]
        return Array(try JSONSerialization.data(withJSONObject: object))
    }
}

/// A thread-safe counter for closures that count calls.
final class Counter: Sendable {
    private let value = Mutex(0)

    /// Adds one and returns the new count.
    func increment() -> Int {
        value.withLock { value in
            value += 1
            return value
        }
    }

    var count: Int { value.withLock { $0 } }
}
