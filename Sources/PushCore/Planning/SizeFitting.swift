/// Makes an event's requests to one platform fit the provider's size limit: drop the forwarded payload, then cut
/// the content on a grapheme boundary (with `…`), then cut every text; `nil` when even that does not fit.
///
/// The work is shared by every device of the event. A body is the rendering's bytes plus what the device adds (an
/// FCM body carries the token, both carry the badge), and the two never shape each other, so a body's size is the
/// size for a reference device (empty token, no badge) plus the device's own bytes. Sizes are measured once per
/// `Trim` with the reference device, and the search runs once per distinct byte budget: the content is rendered
/// and encoded in full at most twice per platform, never per device.
struct SizeFitting {
    let limit: Int
    private let renderer: PushRenderer
    /// The body for a device: the platform's builder.
    private let body: (RenderedPush, _ token: String, _ badge: Int?) -> [UInt8]
    /// The content's length in grapheme clusters, counted up to `limit` (more can never fit).
    private let contentLength: Int
    private var renderings: [Trim: RenderedPush] = [:]
    private var referenceSizes: [Trim: Int] = [:]
    private var trimsByBudget: [Int: Trim?] = [:]
    private var longestText: Int?

    init(limit: Int, renderer: PushRenderer, body: @escaping (RenderedPush, String, Int?) -> [UInt8]) {
        self.limit = limit
        self.renderer = renderer
        self.body = body
        contentLength = renderer.visibleContent.graphemeCount(upTo: limit)
    }

    /// The rendering cut as `trim`, made once.
    mutating func rendering(_ trim: Trim) -> RenderedPush {
        if let rendering = renderings[trim] { return rendering }
        let rendering = renderer.render(trim)
        renderings[trim] = rendering
        return rendering
    }

    /// The largest cut of the rendering whose body fits the limit for a device with this token and badge.
    mutating func trim(token: String, badge: Int?) -> Trim? {
        let reference = rendering(Trim(includesPayload: false, contentLimit: 0, textLimit: 0))
        let deviceBytes = body(reference, token, badge).count - body(reference, "", nil).count
        let budget = limit - deviceBytes
        if let known = trimsByBudget[budget] { return known }
        let trim = largestTrim(within: budget)
        trimsByBudget[budget] = trim
        return trim
    }

    private mutating func largestTrim(within budget: Int) -> Trim? {
        if fits(Trim(), budget) { return Trim() }
        var trim = Trim(includesPayload: false)
        if fits(trim, budget) { return trim }
        // Each grapheme cluster takes at least one byte, so more than `limit` of them can never fit.
        if contentLength > 0,
            let count = Self.largestFitting(
                upTo: contentLength - 1,
                { count in
                    trim.contentLimit = count
                    return fits(trim, budget)
                })
        {
            trim.contentLimit = count
            return trim
        }
        trim.contentLimit = 0
        let textLength = min(longestTextLength(), limit)
        guard textLength > 0,
            let count = Self.largestFitting(
                upTo: textLength - 1,
                { count in
                    trim.textLimit = count
                    return fits(trim, budget)
                })
        else { return nil }
        trim.textLimit = count
        return trim
    }

    private mutating func fits(_ trim: Trim, _ budget: Int) -> Bool {
        if let size = referenceSizes[trim] { return size <= budget }
        let size = body(rendering(trim), "", nil).count
        referenceSizes[trim] = size
        return size <= budget
    }

    private mutating func longestTextLength() -> Int {
        if let longestText { return longestText }
        let length = renderer.longestText()
        longestText = length
        return length
    }

    /// The largest `count` in `0...upper` that `fits`, by binary search (size grows with count).
    private static func largestFitting(upTo upper: Int, _ fits: (Int) -> Bool) -> Int? {
        var low = 0
        var high = upper
        var best: Int?
        while low <= high {
            let middle = low + (high - low) / 2
            if fits(middle) {
                best = middle
                low = middle + 1
            } else {
                high = middle - 1
            }
        }
        return best
    }
}
