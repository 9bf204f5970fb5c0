import Configuration
import Essentials
import Observability
import PipelineMetrics
import PushCore
package import PushPipeline
import Synchronization

/// The apps of `PUSH_APPS_DIR` as last read: each folder's credentials, or why it cannot be used. `refresh()`
/// re-reads the folder (a Kubernetes Secret update swaps its `..data` symlink) and changes only the apps whose files
/// changed; a broken folder refuses its app only. The empty `appID` is the default app of the `APNS_*` / `FCM_*`
/// variables.
///
/// Each refusal is counted (`push_app_refusals_total`) and logged naming the file at fault, at most once per app per `logInterval` (`RateLimitedLog`).
package final class AppCatalog: AppContexts, Sendable {
    /// One app as last read.
    enum Entry: Sendable {
        /// Usable; `generation` changes whenever its files do, so clients made for older files are replaced.
        case ready(AppCredentials, generation: Int)
        case broken(FileReadError)
    }

    /// What one `refresh()` found.
    enum Change: Sendable, Equatable {
        case added(String)
        case changed(String)
        case removed(String)
        case broken(String, FileReadError)
        /// `PUSH_APPS_DIR` itself cannot be listed: the apps stay as they were.
        case unlisted(FileReadError)
    }

    /// Keyed by the app's folder name as bytes (`ByteID`), as a message's `appID` is matched.
    private struct State {
        var contents: [ByteID: AppFolderContents] = [:]
        var entries: [ByteID: Entry] = [:]
        var generation = 0
    }

    let configuration: AppsConfiguration
    private let allowsInsecureHTTP: Bool
    private let defaultContext: ProviderContext
    private let files: any FileReading
    let metrics: AppMetrics
    private let refusalLog: RateLimitedLog
    private let state: Mutex<State>

    init(
        configuration: AppsConfiguration, allowsInsecureHTTP: Bool, defaultContext: ProviderContext,
        files: any FileReading, metrics: AppMetrics, logger: Logger, logInterval: Duration = .seconds(10),
        clock: any WallClock = SystemWallClock()
    ) {
        self.configuration = configuration
        self.allowsInsecureHTTP = allowsInsecureHTTP
        self.defaultContext = defaultContext
        self.files = files
        self.metrics = metrics
        refusalLog = RateLimitedLog(logger: logger, interval: logInterval, clock: clock)
        state = Mutex(State())
    }

    /// Re-reads the folder; returns what changed, in app order.
    @discardableResult
    func refresh() -> [Change] {
        let names: [String]
        do {
            names = try files.folders(in: configuration.directory)
        } catch let error as FileReadError {
            return [.unlisted(error)]
        } catch {
            return [.unlisted(FileReadError(path: configuration.directory, reason: String(describing: error)))]
        }
        // Two names whose bytes are not UTF-8 may read as one text: the first is kept.
        let read = Dictionary(
            names.map { (ByteID($0), AppFolderContents.read("\(configuration.directory)/\($0)", files: files)) }
        ) { first, _ in first }
        let known = state.withLock { $0.contents }
        var parsed: [ByteID: Entry] = [:]
        for (app, contents) in read where known[app] != contents {
            do {
                let credentials = try AppCredentials.parse(
                    contents, defaults: configuration.defaultURLs, allowsInsecureHTTP: allowsInsecureHTTP)
                parsed[app] = .ready(credentials, generation: 0)
            } catch {
                parsed[app] = .broken(error)
            }
        }
        return state.withLock { state in
            var changes: [Change] = []
            for app in Set(state.contents.keys).union(read.keys).sorted() {
                guard let contents = read[app] else {
                    state.contents[app] = nil
                    state.entries[app] = nil
                    changes.append(.removed(app.text))
                    continue
                }
                guard var entry = parsed[app] else { continue }
                let isNew = state.contents[app] == nil
                state.contents[app] = contents
                switch entry {
                case .ready(let credentials, _):
                    state.generation += 1
                    entry = .ready(credentials, generation: state.generation)
                    changes.append(isNew ? .added(app.text) : .changed(app.text))
                case .broken(let error):
                    changes.append(.broken(app.text, error))
                }
                state.entries[app] = entry
            }
            return changes
        }
    }

    /// The app `appID` as last read; `nil` when `PUSH_APPS_DIR` has no folder of that name.
    func entry(ofApp appID: String) -> Entry? {
        state.withLock { $0.entries[ByteID(appID)] }
    }

    public func standing(ofApp appID: String) -> AppStanding {
        guard !appID.isEmpty else { return .ready(defaultContext) }
        switch entry(ofApp: appID) {
        case .ready(let credentials, _)?:
            return .ready(credentials.context)
        case .broken(let error)?:
            logRefusal(appID, .misconfigured, file: error.path, reason: error.reason)
            return .refused(.misconfigured)
        case nil:
            logRefusal(
                appID, .unknownApp, file: "\(configuration.directory)/\(appID)", reason: "no such app folder")
            return .refused(.unknownApp)
        }
    }

    private func logRefusal(_ appID: String, _ refusal: AppRefusal, file: String, reason: String) {
        metrics.refusals(app: appID, reason: refusal).increment()
        refusalLog.error(
            key: appID, "app cannot send, its sends rejected",
            metadata: [
                "push.app": .string(appID), "push.reason": .string(refusal.rawValue), "push.app_file": .string(file),
                "error": .string(reason),
            ])
    }
}
