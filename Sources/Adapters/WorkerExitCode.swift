import CLI
package import Lifecycle
import PushPipeline

/// The exit codes of `push-worker run`, documented in the README.
public enum WorkerExitCode {
    /// Stopped by SIGTERM/SIGINT after draining, flushing and committing.
    public static let success: Int32 = 0
    /// A runtime failure: Kafka or the status server could not start, or the consumer became unusable.
    public static let failure: Int32 = 1
    /// The command line does not fit the usage.
    public static let usage: Int32 = 2
    /// A setting (environment, `--config` file, key or rules file) is missing or invalid, or the LMDB device store's
    /// directory cannot serve (another process holds it, its file is foreign, or damaged and cannot be moved aside), or
    /// the `assigned` registry scope's fan-out and registry topics are not co-partitioned.
    public static let configuration: Int32 = 3
    /// The watchdog found polling stalled past `max.poll.interval.ms`; exits without committing.
    public static let stalled: Int32 = 4
    /// A second SIGTERM/SIGINT during shutdown, or a shutdown past its budget: exits at once, without committing
    /// (128 + SIGINT).
    public static let forced: Int32 = 130

    /// The codes `run`'s service group returns: 0 after a signal, 1 for a service's failure, 130 when forced.
    package static let serviceGroup = ServiceGroup.ExitCodes(
        signal: success, finished: success, failure: failure, forced: forced)

    /// Prints the one line that names the bad setting; returns `configuration`.
    public static func refuse(_ error: any Error) -> Int32 {
        StandardStreams.writeError("push-worker: \(error)")
        return configuration
    }
}
