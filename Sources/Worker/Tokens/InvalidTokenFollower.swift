import Kafka
import PushPipeline
import TopicWindow

/// Reads the invalid-token topic into an `InvalidTokenTable` from its beginning, then follows it while the
/// worker runs (every pod keeps the whole table), so that a token any pod found dead is skipped by all.
public struct InvalidTokenFollower: Sendable {
    let configuration: KafkaConfiguration
    let topic: String
    let table: InvalidTokenTable

    public init(configuration: KafkaConfiguration, topic: String, table: InvalidTokenTable) {
        self.configuration = configuration
        self.topic = topic
        self.table = table
    }

    /// Follows the topic until the task is cancelled; `table.isLoaded` turns true once it has read what the
    /// topic held at the start. A Kafka failure (a missing topic, a broker away) is retried every
    /// `retryInterval`, told to `onFailure` each time.
    public func run(retryInterval: Duration = .seconds(5), onFailure: @Sendable (String) -> Void) async {
        while !Task.isCancelled {
            do {
                let reader = try TopicWindowReader(configuration: configuration, topic: topic)
                do {
                    try await follow(reader)
                } catch {
                    onFailure("\(error)")
                }
                await reader.close()
            } catch {
                onFailure("\(error)")
            }
            try? await Task.sleep(for: retryInterval)
        }
    }

    private func follow(_ reader: TopicWindowReader) async throws {
        let windows = try await reader.plan(from: .beginning, to: .end)
        let table = table
        try await reader.follow(windows, caughtUp: { table.isLoaded = true }) { table.apply($0) }
    }
}
