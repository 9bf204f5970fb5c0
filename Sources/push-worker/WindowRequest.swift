import CLI
import PushPipeline
import TopicWindow

/// The `--from`, `--to` and `--partitions` options of the tools that read a window of a topic; `--partitions` is
/// a comma-separated list of partition numbers, duplicates dropped.
struct WindowRequest {
    let from: TopicPosition
    let to: TopicPosition
    let partitions: [Int32]?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        from = try Self.position(arguments, "--from", default: .beginning)
        to = try Self.position(arguments, "--to", default: .end)
        if let text = arguments.value("--partitions") {
            var partitions: [Int32] = []
            for item in text.split(separator: ",", omittingEmptySubsequences: false) {
                guard let partition = Int32(item), partition >= 0 else {
                    throw UsageError("option '--partitions': '\(item)' is not a partition number")
                }
                partitions.append(partition)
            }
            // A partition listed twice is read once.
            self.partitions = Set(partitions).sorted()
        } else {
            partitions = nil
        }
    }

    private static func position(_ arguments: ParsedArguments, _ flag: String, default defaultPosition: TopicPosition)
        throws(UsageError) -> TopicPosition
    {
        guard let text = arguments.value(flag) else { return defaultPosition }
        switch TopicPosition.parse(text) {
        case .success(let position): return position
        case .failure(let error): throw UsageError("option '\(flag)': \(error)")
        }
    }
}
