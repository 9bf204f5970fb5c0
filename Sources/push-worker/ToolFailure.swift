import Adapters
import CLI
import PushPipeline

/// How the Kafka tools end on an error: one line on stderr naming it, and the exit code for its kind.
enum ToolFailure {
    /// A command line that does not fit: exit 2.
    static func usage(_ error: UsageError) -> Int32 {
        StandardStreams.writeError("push-worker: error: \(error.message)")
        return WorkerExitCode.usage
    }

    /// A missing or invalid setting: exit 3.
    static func configuration(_ error: any Error) -> Int32 {
        StandardStreams.writeError("push-worker: \(error)")
        return WorkerExitCode.configuration
    }

    /// Kafka or the file system failed: exit 1.
    static func runtime(_ doing: String, _ error: Any) -> Int32 {
        StandardStreams.writeError("push-worker: error \(doing): \(error)")
        return WorkerExitCode.failure
    }
}
