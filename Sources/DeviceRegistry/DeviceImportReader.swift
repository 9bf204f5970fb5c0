public import PushCore

extension DeviceImport {
    /// The longest line an import takes, in bytes: far above any subscription, and the bound of the memory one line
    /// may take.
    public static let maximumLineBytes = 64 * 1024

    /// What one line of an import file is.
    public enum LineOutcome: Sendable, Equatable {
        /// Empty, or only spaces.
        case blank
        /// The CSV header.
        case header
        case subscription(Subscription)
        /// A bad line, skipped, and why.
        case skipped(RegistryRecordError)
        /// A CSV header that names no readable columns: nothing after it can be read.
        case refused(RegistryRecordError)
    }

    /// Reads the lines of an import file in order (a CSV file's first line that is not blank is its header). Pure.
    public struct Reader: Sendable {
        public let format: Format
        private var columns: [String: Int]?

        public init(format: Format) {
            self.format = format
        }

        public mutating func read(_ line: LineSplitter.Line) -> LineOutcome {
            let text: String
            switch line.text {
            case .success(let decoded): text = decoded
            case .failure(let error): return columns == nil && format == .csv ? .refused(error) : .skipped(error)
            }
            guard !text.allSatisfy({ $0 == " " }) else { return .blank }
            let result: Result<Subscription, RegistryRecordError>
            switch format {
            case .jsonl:
                result = DeviceImport.subscription(jsonLine: Substring(text))
            case .csv:
                guard let columns else {
                    switch DeviceImport.columns(csvHeader: Substring(text)) {
                    case .success(let found):
                        self.columns = found
                        return .header
                    case .failure(let error):
                        return .refused(error)
                    }
                }
                result = DeviceImport.subscription(csvLine: Substring(text), columns: columns)
            }
            switch result {
            case .success(let subscription): return .subscription(subscription)
            case .failure(let error): return .skipped(error)
            }
        }
    }
}
