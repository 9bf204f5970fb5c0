extension String {
    /// The text cut to at most `limit` grapheme clusters, ending in `…` when anything was cut.
    func truncated(toGraphemes limit: Int?) -> String {
        guard let limit else { return self }
        var end = startIndex
        var count = 0
        while end < endIndex {
            if count == limit { return String(self[..<end]) + "…" }
            end = index(after: end)
            count += 1
        }
        return self
    }
}
