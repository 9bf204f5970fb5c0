import Kafka
import Testing

@Suite struct KafkaErrorTests {
    @Test(arguments: [
        ("REQUEST_TIMED_OUT", true),
        ("NOT_LEADER_FOR_PARTITION", true),
        ("_TRANSPORT", true),
        ("_MSG_TIMED_OUT", true),
        ("TOPIC_AUTHORIZATION_FAILED", false),
        ("MSG_SIZE_TOO_LARGE", false),
        ("_INVALID_ARG", false),
    ])
    func retriableFlagFollowsTheCode(name: String, retriable: Bool) throws {
        let code = try #require(KafkaError.Code(name: name))
        let error = KafkaError(code: code, message: "x")
        #expect(error.isRetriable == retriable)
        #expect(error.name == name)
        #expect(!error.isFatal)
    }

    @Test func namesRoundTripAndDescriptionsAreReadable() throws {
        let code = try #require(KafkaError.Code(name: "REQUEST_TIMED_OUT"))
        #expect(code == .requestTimedOut)
        #expect(code.reason == "Broker: Request timed out")
        #expect(KafkaError.Code(name: "NO_SUCH_ERROR") == nil)
        #expect(KafkaError(code: .queueFull, message: "queue is full").description == "_QUEUE_FULL: queue is full")
    }

    /// An error says where the Kafka layer raised it (in its debug description, not in the description logs show),
    /// and two errors that differ only there are equal.
    @Test func errorsCarryWhereTheyWereRaised() {
        do {
            _ = try MockClusterCommand.parse("")
            Issue.record("an empty command parsed")
        } catch {
            #expect(error.file == "Kafka/MockClusterCommand.swift")
            #expect(error.line > 0)
            #expect(error.description == "_INVALID_ARG: empty command")
            #expect(
                error.debugDescription == "_INVALID_ARG: empty command (Kafka/MockClusterCommand.swift:\(error.line))")
        }
        let here = KafkaError(code: .queueFull, message: "full")
        #expect(here.file == "KafkaUnitTests/KafkaErrorTests.swift")
        #expect(here == KafkaError(code: .queueFull, message: "full", file: "elsewhere", line: 1))
        #expect(here != KafkaError(code: .queueFull, message: "other"))
    }
}
