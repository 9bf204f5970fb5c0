import Foundation
import HTTP2
import Kafka
import KafkaTypes
import Observability
import PipelineMetrics
import PushPipeline
import Testing

@testable import Configuration
@testable import Worker

@Suite("Worker probes and sampled metrics")
struct WorkerHealthTests {
    @Test func pollLoopFailsOnlyBeyondMaxPollInterval() {
        let limit = Duration.seconds(300)
        #expect(WorkerHealth.pollLoop(lastPollMicros: 0, nowMicros: 5_000, limit: limit) == .pass("last poll 5 ms ago"))
        #expect(WorkerHealth.pollLoop(lastPollMicros: 0, nowMicros: 300_000_000, limit: limit).passing)
        #expect(
            WorkerHealth.pollLoop(lastPollMicros: 0, nowMicros: 300_001_000, limit: limit)
                == .fail("last poll 300001 ms ago, limit 300000 ms"))
    }

    @Test func eventLoopFailsWhenItStopsTurning() {
        #expect(WorkerHealth.eventLoop(sinceLastTurn: .milliseconds(900)) == .pass("last turn 900 ms ago"))
        #expect(!WorkerHealth.eventLoop(sinceLastTurn: .seconds(31)).passing)
    }

    @Test(arguments: [
        (nil, false, false),
        (ConsumerHealth(groupState: "up", joinState: "steady", brokersUp: 1), true, true),
        (ConsumerHealth(groupState: "up", joinState: "wait-sync", brokersUp: 3), false, true),
        (ConsumerHealth(groupState: "wait-coord", joinState: "init", brokersUp: 0), false, false),
    ])
    func groupAndBrokersFollowTheConsumersStatistics(health: ConsumerHealth?, joined: Bool, brokers: Bool) {
        #expect(WorkerHealth.group(health).passing == joined)
        #expect(WorkerHealth.brokers(health).passing == brokers)
    }

    @Test func anOpenBreakerWarnsNamingTheProvidersWithoutMakingThePodUnready() {
        #expect(WorkerHealth.breakers(open: []) == .pass("all closed"))
        #expect(WorkerHealth.breakers(open: [.apns, .fcm]) == .warn("open: apns,fcm"))
        #expect(WorkerHealth.breakers(open: [], openOrigins: 2) == .warn("webpush origins open: 2"))
        #expect(WorkerHealth.breakers(open: [.fcm], openOrigins: 1) == .warn("open: fcm; webpush origins open: 1"))
        let readiness = HealthChecks()
        readiness.set("kafka.group", passing: true)
        readiness.register("providers.breakers") { WorkerHealth.breakers(open: [.apns]) }
        let report = readiness.evaluate()
        #expect(report.passing)
        #expect(report.status == .warn)
    }

    @Test func theProvidersCheckNamesTheActiveProvidersAndWhyOneIsLeftOutWithoutFailing() {
        #expect(
            WorkerHealth.providers(configured: [.apns, .fcm], absent: [])
                == .pass("apns,fcm; webpush: no VAPID key (WEBPUSH_VAPID_KEY_FILE), web devices are skipped"))
        #expect(WorkerHealth.providers(configured: [.apns, .fcm, .webpush], absent: []) == .pass("apns,fcm,webpush"))
        let absent = AbsentProvider(
            provider: .apns, variable: "APNS_KEY_FILE", reason: "APNS_KEY_FILE /k.p8 does not exist")
        #expect(
            WorkerHealth.providers(configured: [.fcm, .webpush], absent: [absent])
                == .pass("fcm,webpush; left out: apns: APNS_KEY_FILE /k.p8 does not exist"))
    }

    @Test func aTableFailsWhileLoadingWithinTheStartWaitAndWarnsPastIt() {
        #expect(WorkerHealth.table(loaded: true, entries: 7, pastStartWait: false) == .pass("7 entries, caught up"))
        #expect(WorkerHealth.table(loaded: true, entries: 7, pastStartWait: true) == .pass("7 entries, caught up"))
        #expect(
            WorkerHealth.table(loaded: false, entries: 3, pastStartWait: false) == .fail("loading, 3 entries so far"))
        #expect(
            WorkerHealth.table(loaded: false, entries: 3, pastStartWait: true) == .warn("loading, 3 entries so far"))
    }

    @Test func observerSetsTheBreakerGaugeAndCountsRebalances() {
        let registry = MetricsRegistry()
        let metrics = PushMetrics(registry: registry)
        let observer = ObservabilityObserver(
            logger: Logger(label: "test", level: .critical), metrics: metrics, providers: [.fcm])
        #expect(registry.prometheusText().contains(#"push_breaker_open{provider="fcm"} 0"#))
        observer.observe(.breakerOpened(.fcm))
        #expect(metrics.breakerOpen(provider: "fcm").value == 1)
        observer.observe(.breakerClosed(.fcm))
        #expect(metrics.breakerOpen(provider: "fcm").value == 0)

        let partitions = [TopicPartition("t", 0), TopicPartition("t", 1)]
        observer.observe(.assigned(partitions))
        observer.observe(.revoked([partitions[0]], unfinished: 0))
        #expect(metrics.rebalances(event: "assigned").value == 1)
        #expect(metrics.rebalances(event: "revoked").value == 1)
        observer.observe(.endToEnd(latencyMillis: 1500))
        #expect(metrics.endToEndLatency.sum == 1.5)
    }

    @Test func tableGaugesFollowTheInvalidTokenTableAtEveryScrape() {
        let registry = MetricsRegistry()
        let table = InvalidTokenTable()
        PushMetrics(registry: registry).followTable(
            "invalid_tokens", entries: { table.count }, bytes: { table.storageBytes })
        #expect(registry.prometheusText().contains(#"push_table_entries{table="invalid_tokens"} 0"#))
        for index in 0..<1000 {
            table.apply(key: "fcm:sha256:" + String(format: "%064x", index), value: Array("{}".utf8))
        }
        let text = registry.prometheusText()
        #expect(text.contains(#"push_table_entries{table="invalid_tokens"} 1000"#))
        let bytes = text.split(separator: "\n").first { $0.hasPrefix(#"push_table_bytes{table="invalid_tokens"} "#) }
        let value = (bytes?.split(separator: " ").last).flatMap { Double($0) } ?? 0
        // 1,000 entries of 33 bytes at least, in a hash set at most four times their count.
        #expect(value >= 33_000 && value <= 4 * 1024 * 48, "\(value)")
    }

    @Test func lagOfARetryTiersTopicIsLabelledApartFromTheInput() {
        let registry = MetricsRegistry()
        var sampler = MetricsSampler(metrics: PushMetrics(registry: registry, retryTopics: ["push.retry-1000"]))
        sampler.sample(
            lag: [("chat.messages", 0, 5), ("push.retry-1000", 0, 9)], commits: CommitCounts(succeeded: 0, failed: 0),
            http: HTTP2TransportCounts(connectionsOpened: 0, resends: 0))
        let text = registry.prometheusText()
        #expect(text.contains(#"kafka_consumer_lag{kind="input",partition="0",topic="chat.messages"} 5"#))
        #expect(text.contains(#"kafka_consumer_lag{kind="retry",partition="0",topic="push.retry-1000"} 9"#))
        sampler.sample(
            lag: [], commits: CommitCounts(succeeded: 0, failed: 0),
            http: HTTP2TransportCounts(connectionsOpened: 0, resends: 0))
        #expect(!registry.prometheusText().contains("kafka_consumer_lag{"))
    }

    @Test func samplerRemovesTheLagOfPartitionsNoLongerOwnedAndAdvancesCommits() {
        let registry = MetricsRegistry()
        var sampler = MetricsSampler(metrics: PushMetrics(registry: registry))
        sampler.sample(
            lag: [("t", 0, 5), ("t", 1, 7)], commits: CommitCounts(succeeded: 3, failed: 1),
            http: HTTP2TransportCounts(connectionsOpened: 2, resends: 1, oversizedResponses: 4),
            producerEarlyReleases: 6)
        var text = registry.prometheusText()
        #expect(text.contains("push_worker_produce_early_releases_total 6"))
        #expect(text.contains(#"kafka_consumer_lag{kind="input",partition="1",topic="t"} 7"#))
        #expect(text.contains(#"kafka_commits_total{result="success",stage="input"} 3"#))
        #expect(text.contains("push_http_connections_total 2"))
        #expect(text.contains("push_http_resends_total 1"))
        #expect(text.contains("push_http_oversized_responses_total 4"))
        sampler.sample(
            lag: [("t", 0, 2)], commits: CommitCounts(succeeded: 5, failed: 1),
            http: HTTP2TransportCounts(connectionsOpened: 3, resends: 1))
        text = registry.prometheusText()
        #expect(!text.contains(#"partition="1""#))
        #expect(text.contains(#"kafka_consumer_lag{kind="input",partition="0",topic="t"} 2"#))
        #expect(text.contains(#"kafka_commits_total{result="success",stage="input"} 5"#))
        #expect(text.contains("push_http_connections_total 3"))
    }

    @Test func theFanoutStagesSamplerExportsItsLagAndCommitsApartFromTheInputStages() {
        let registry = MetricsRegistry()
        let metrics = PushMetrics(registry: registry)
        var input = MetricsSampler(metrics: metrics)
        var fanout = MetricsSampler(metrics: metrics, stage: .fanout)
        input.sample(
            lag: [("chat.messages", 0, 5)], commits: CommitCounts(succeeded: 3, failed: 0),
            http: HTTP2TransportCounts(connectionsOpened: 0, resends: 0))
        fanout.sample(
            lag: [("push.fanout", 2, 8)], commits: CommitCounts(succeeded: 7, failed: 1),
            http: HTTP2TransportCounts(connectionsOpened: 0, resends: 0))
        let text = registry.prometheusText()
        #expect(text.contains(#"kafka_consumer_lag{kind="input",partition="0",topic="chat.messages"} 5"#))
        #expect(text.contains(#"kafka_consumer_lag{kind="input",partition="2",topic="push.fanout"} 8"#))
        #expect(text.contains(#"kafka_commits_total{result="success",stage="input"} 3"#))
        #expect(text.contains(#"kafka_commits_total{result="success",stage="fanout"} 7"#))
        #expect(text.contains(#"kafka_commits_total{result="failure",stage="fanout"} 1"#))
        // The fan-out stage's sampler leaves the input stage's lag alone, and the other way round.
        fanout.sample(
            lag: [], commits: CommitCounts(succeeded: 7, failed: 1),
            http: HTTP2TransportCounts(connectionsOpened: 0, resends: 0))
        #expect(registry.prometheusText().contains(#"topic="chat.messages"} 5"#))
        #expect(!registry.prometheusText().contains(#"topic="push.fanout""#))
    }
}
