import Testing

@testable import Observability

@Suite("Secrets never reach logs")
struct RedactionTests {
    let key = Secret("-----BEGIN PRIVATE KEY-----MIGTAgEAMBMGByqGSM49")

    @Test func secretPrintsAsRedactedEverywhere() {
        #expect(key.description == "<redacted>")
        #expect("\(key)" == "<redacted>")
        #expect(String(reflecting: key) == "<redacted>")
        var dumped = ""
        dump(key, to: &dumped)
        #expect(!dumped.contains("PRIVATE"))
        #expect(key.revealed.hasPrefix("-----BEGIN"))
    }

    @Test func logLinesCarryNoSecrets() throws {
        let lines = try captureLines { sink in
            let logger = Logger(label: "test", sink: sink)
            logger.info("signed", metadata: ["apns.key": .redacted(key)])
        }
        #expect(lines.count == 1)
        #expect(!lines[0].contains("PRIVATE"))
        #expect(lines[0].contains(#""apns.key":"<redacted>""#))
    }
}
