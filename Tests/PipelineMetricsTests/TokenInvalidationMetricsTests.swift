import Essentials
import Observability
import PipelineMetrics
import PushCore
import PushPipeline
import TestSupport
import Testing

/// `push_token_invalidation_suspended`: which apps and providers have their invalid-token answers suspended.
@Suite struct TokenInvalidationMetricsTests {
    static func series(_ registry: MetricsRegistry) -> [String] {
        registry.prometheusText().split(separator: "\n").map(String.init).filter {
            $0.hasPrefix("push_token_invalidation_suspended{")
        }
    }

    @Test func theDefaultAppsSeriesAreAtZeroFromTheFirstScrapeAndOneWhileSuspended() {
        let registry = MetricsRegistry()
        let watch = TokenInvalidationWatch(TokenInvalidationGuard(maximumRatio: 0.5, minimumSends: 1))
        let clock = TestClock()
        PushMetrics(registry: registry).followTokenInvalidations(watch, clock: clock)
        #expect(
            Self.series(registry) == [
                #"push_token_invalidation_suspended{app="",provider="apns"} 0"#,
                #"push_token_invalidation_suspended{app="",provider="fcm"} 0"#,
                #"push_token_invalidation_suspended{app="",provider="webpush"} 0"#,
            ])
        _ = watch.answer(.init(app: "", provider: .fcm), invalid: true, nowMillis: clock.nowMillis())
        #expect(Self.series(registry).contains(#"push_token_invalidation_suspended{app="",provider="fcm"} 1"#))
        _ = watch.answer(.init(app: "", provider: .fcm), invalid: false, nowMillis: clock.nowMillis())
        #expect(Self.series(registry).contains(#"push_token_invalidation_suspended{app="",provider="fcm"} 0"#))
    }

    @Test func onlyTheConfiguredProvidersHaveSeries() {
        let registry = MetricsRegistry()
        let watch = TokenInvalidationWatch(TokenInvalidationGuard(maximumRatio: 0.5, minimumSends: 1))
        let clock = TestClock()
        PushMetrics(registry: registry).followTokenInvalidations(watch, clock: clock, providers: [.fcm])
        _ = watch.answer(.init(app: "A", provider: .apns), invalid: true, nowMillis: clock.nowMillis())
        #expect(Self.series(registry) == [#"push_token_invalidation_suspended{app="",provider="fcm"} 0"#])
    }

    @Test func appsPastTheBoundShowAsOther() {
        let registry = MetricsRegistry()
        let watch = TokenInvalidationWatch(TokenInvalidationGuard(maximumRatio: 0.5, minimumSends: 1))
        let clock = TestClock()
        PushMetrics(registry: registry).followTokenInvalidations(watch, clock: clock, maximumApps: 2)
        for app in ["A", "B", "C", "D"] {
            _ = watch.answer(.init(app: app, provider: .apns), invalid: true, nowMillis: clock.nowMillis())
        }
        let apps = Set(
            Self.series(registry).compactMap { $0.split(separator: "\"").dropFirst().first.map(String.init) })
        #expect(apps.count == 4)
        #expect(apps.contains(PushMetrics.otherAppsLabel))
        #expect(
            Self.series(registry).contains(
                #"push_token_invalidation_suspended{app="_other",provider="apns"} 1"#))
    }
}
