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

    /// The number of grapheme clusters, counted no further than `limit`: `min(count, limit)` without walking the rest.
    func graphemeCount(upTo limit: Int) -> Int {
        var end = startIndex
        var count = 0
        while count < limit, end < endIndex {
            end = index(after: end)
            count += 1
        }
        return count
    }
}
