/// Makes a request fit its provider's size limit: drop the forwarded payload, then cut the content on a grapheme
/// boundary (with `…`), then cut every text; `nil` when even that does not fit.
enum SizeFitting {
    static func fit(
        limit: Int, renderer: PushRenderer, build: (RenderedPush) -> ProviderRequest
    ) -> ProviderRequest? {
        var trim = Trim(includesPayload: false)
        let withoutPayload = build(renderer.render(trim))
        if withoutPayload.body.count <= limit { return withoutPayload }

        // Each grapheme cluster takes at least one byte, so more than `limit` of them can never fit.
        let contentLength = min(renderer.visibleContent.count, limit)
        if contentLength > 0,
            let request = largestFitting(
                limit: limit, upTo: contentLength - 1,
                build: { count in
                    trim.contentLimit = count
                    return build(renderer.render(trim))
                })
        {
            return request
        }
        trim.contentLimit = 0
        let textLength = min(renderer.longestText(), limit)
        guard textLength > 0 else { return nil }
        return largestFitting(limit: limit, upTo: textLength - 1) { count in
            trim.textLimit = count
            return build(renderer.render(trim))
        }
    }

    /// The request for the largest `count` in `0...upper` whose body fits, by binary search (size grows with count).
    private static func largestFitting(
        limit: Int, upTo upper: Int, build: (Int) -> ProviderRequest
    ) -> ProviderRequest? {
        var low = 0
        var high = upper
        var best: ProviderRequest?
        while low <= high {
            let middle = (low + high) / 2
            let request = build(middle)
            if request.body.count <= limit {
                best = request
                low = middle + 1
            } else {
                high = middle - 1
            }
        }
        return best
    }
}
