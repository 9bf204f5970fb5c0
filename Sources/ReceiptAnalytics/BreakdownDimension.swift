/// A receipt field that `--by` can break the counts down by.
public enum BreakdownDimension: String, Sendable, CaseIterable {
    case platform
    case type
    case status
    case worker

    /// The value of this field in `receipt` (`-` where it has none).
    public func value(of receipt: ReceiptFacts) -> String {
        switch self {
        case .platform: receipt.platform
        case .type: receipt.type
        case .status: receipt.status
        case .worker: receipt.worker ?? "-"
        }
    }

    /// Parses `platform,type,…` (each at most once); `nil` and the offending name when one is unknown.
    public static func parseList(_ text: String) -> Result<[BreakdownDimension], UnknownDimension> {
        var dimensions: [BreakdownDimension] = []
        for name in text.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = name.trimmingCharacters(in: " ")
            guard let dimension = BreakdownDimension(rawValue: trimmed) else {
                return .failure(UnknownDimension(name: trimmed))
            }
            if !dimensions.contains(dimension) { dimensions.append(dimension) }
        }
        return .success(dimensions)
    }

    /// A `--by` name that is not a dimension.
    public struct UnknownDimension: Error, Equatable {
        public let name: String
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in character: Character) -> String {
        String(drop { $0 == character }.reversed().drop { $0 == character }.reversed())
    }
}
