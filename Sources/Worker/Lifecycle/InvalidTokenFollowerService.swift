import Lifecycle
import Observability
import PushPipeline

/// Follows the invalid-token topic into the table while the worker runs (`InvalidTokenFollower`), logging each
/// Kafka failure before retrying.
struct InvalidTokenFollowerService: Service {
    let follower: InvalidTokenFollower
    let logger: Logger

    func run() async {
        await follower.run { [logger] error in
            logger.warning("cannot read the invalid-token topic", metadata: ["error": .string(error)])
        }
    }
}
