public import Essentials
import Observability
public import PushPipeline
import Synchronization

extension PushMetrics {
    /// The `app` label of the suspended scopes of apps beyond `followTokenInvalidations`' bound.
    public static let otherAppsLabel = "_other"

    /// `push_token_invalidation_suspended{app,provider}`: 1 while an app's "invalid token" answers from a provider are
    /// suspect (`TokenInvalidationGuard`), read at every scrape, for the configured `providers`. The default app's
    /// series (app `""`) exist at 0 from the first scrape; another app gets its series when first suspended, up to
    /// `maximumApps` apps (app IDs come from the input), past which suspended scopes show as app `_other`. A series
    /// once exported stays, at 0 when resumed.
    public func followTokenInvalidations(
        _ watch: TokenInvalidationWatch, clock: any WallClock, providers: [PushProvider] = PushProvider.allCases,
        maximumApps: Int = 50
    ) {
        let registry = self.registry
        let gauge = { @Sendable (app: String, provider: PushProvider) in
            registry.gauge(
                "push_token_invalidation_suspended",
                help: "1 while an app's invalid-token answers from a provider are suspect and not acted on.",
                labels: ["app": app, "provider": provider.rawValue])
        }
        for provider in providers { gauge("", provider).set(0) }
        let labelled = Mutex([""])
        registry.addCollector {
            let suspended = watch.suspendedScopes(nowMillis: clock.nowMillis()).filter {
                providers.contains($0.provider)
            }
            let apps = labelled.withLock { apps in
                for scope in suspended where !apps.contains(scope.app) {
                    if apps.count <= maximumApps {
                        apps.append(scope.app)
                    } else if !apps.contains(Self.otherAppsLabel) {
                        apps.append(Self.otherAppsLabel)
                    }
                }
                return apps
            }
            var values: [String: Set<PushProvider>] = [:]
            for scope in suspended {
                let app = apps.contains(scope.app) ? scope.app : Self.otherAppsLabel
                values[app, default: []].insert(scope.provider)
            }
            for app in apps {
                for provider in providers {
                    gauge(app, provider).set(values[app]?.contains(provider) == true ? 1 : 0)
                }
            }
        }
    }
}
