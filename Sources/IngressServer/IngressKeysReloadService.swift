import Adapters
import Configuration
import Essentials
import Ingress
import Lifecycle
import Observability

/// Checks `PUSH_INGRESS_KEYS_FILE` every `checkInterval` and puts a valid new key list in force
/// (`FileReloader`), so a Kubernetes Secret update rotates the keys without a restart. A file that does not
/// parse keeps the keys in force; the log says why (the entry's position and the reason, never a key). Its shutdown
/// stops the checks.
struct IngressKeysReloadService: Service {
    let file: IngressConfiguration.KeysFile
    let ingress: IngressServer
    let files: any FileReading
    let logger: Logger
    let clock: any WallClock

    func run(shutdown: GracefulShutdown) async throws {
        let ingress = ingress
        let reloader = FileReloader(path: file.path, kind: .secret, files: files, initial: file.stamp) { bytes in
            ingress.replaceKeys(with: try IngressKeys(parsing: String(decoding: bytes, as: UTF8.self)))
        }
        let (metadata, logger): (Logger.Metadata, Logger) = (["push.keys_file": .string(file.path)], logger)
        try await PeriodicService(reloading: reloader, every: file.checkInterval, clock: clock) { result in
            switch result {
            case .unchanged:
                break
            case .applied:
                logger.notice("ingress keys reloaded", metadata: metadata)
            case .refused(let reason):
                logger.error(
                    "ingress keys reload refused, previous keys kept",
                    metadata: metadata.merging(["error": .string(reason)]) { $1 })
            }
        }.run(shutdown: shutdown)
    }
}
