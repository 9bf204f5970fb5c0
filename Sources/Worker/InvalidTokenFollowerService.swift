import Adapters
import Lifecycle
import Observability
import PushPipeline

/// Follows the invalid-token topic into the table while the worker runs (`InvalidTokenFollower`), logging each
/// Kafka failure before retrying. Its shutdown stops following.
struct InvalidTokenFollowerService: Service {
    let follower: InvalidTokenFollower
    let logger: Logger

    func run(shutdown: GracefulShutdown) async throws {
        try await shutdown.cancelOnRequest { [follower, logger] in
            await follower.run { error in
                logger.warning("cannot read the invalid-token topic", metadata: ["error": .string(error)])
            }
        }
    }
}
