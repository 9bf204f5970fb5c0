import Essentials
import Observability
import PushPipeline
import Synchronization

/// The metrics of `PUSH_APPS_DIR`'s apps. The `app` label is bounded: the first `labelLimit` apps seen keep their
/// name, later ones share `(other)` (`BoundedKeys`), and the default app is `(default)`, so a platform of thousands of
/// apps cannot grow the series without bound.
package final class AppMetrics: Sendable {
    /// The `app` label of messages without an `appID`.
    static let defaultAppLabel = "(default)"
    /// The `result` values of `push_apps_reloads_total`.
    static let reloadResults = ["added", "changed", "removed", "broken", "unlisted"]

    let registry: MetricsRegistry
    private let labels: Mutex<BoundedKeys>

    init(registry: MetricsRegistry, labelLimit: Int) {
        self.registry = registry
        labels = Mutex(BoundedKeys(limit: labelLimit))
        for result in Self.reloadResults { _ = reloads(result: result) }
        _ = liveApps
    }

    /// The `app` label of `appID`.
    func label(ofApp appID: String) -> String {
        appID.isEmpty ? Self.defaultAppLabel : labels.withLock { $0.key(for: appID) }
    }

    /// `push_app_sends_total{app,provider,status}`: device sends by app, provider and outcome (`push_sends_total`'s
    /// statuses, plus `unknown_app` and `app_misconfigured` for sends of an app that cannot send).
    func sends(app appID: String, provider: PushProvider, status: String) -> Counter {
        registry.counter(
            "push_app_sends_total", help: "Device sends by app, provider and outcome.",
            labels: ["app": label(ofApp: appID), "provider": provider.rawValue, "status": status])
    }

    /// `push_app_refusals_total{app,reason}`: messages planned for an app that cannot send (`unknown_app`,
    /// `app_misconfigured`), their sends rejected.
    func refusals(app appID: String, reason: AppRefusal) -> Counter {
        registry.counter(
            "push_app_refusals_total", help: "Messages of an app that cannot send, by app and reason.",
            labels: ["app": label(ofApp: appID), "reason": reason.rawValue])
    }

    /// `push_apps_reloads_total{result}`: app folders loaded, reloaded, removed or refused by the checks of
    /// `PUSH_APPS_DIR`, and checks that could not list it.
    func reloads(result: String) -> Counter {
        registry.counter(
            "push_apps_reloads_total", help: "App folder changes found in PUSH_APPS_DIR, by result.",
            labels: ["result": result])
    }

    /// `push_apps_live`: apps whose clients (provider and OAuth tokens) are live.
    var liveApps: Gauge { registry.gauge("push_apps_live", help: "Apps with live provider clients.") }

    /// Counts the changes of one check.
    func count(_ changes: [AppCatalog.Change]) {
        for change in changes {
            let result =
                switch change {
                case .added: "added"
                case .changed: "changed"
                case .removed: "removed"
                case .broken: "broken"
                case .unlisted: "unlisted"
                }
            reloads(result: result).increment()
        }
    }
}
