/// Makes an event's requests to one platform fit the provider's size limit: drop the forwarded payload, then cut
/// the content on a grapheme boundary (with `…`), then cut every text; `nil` when even that does not fit.
///
/// The work is shared by every device of the event. A body is the rendering's bytes plus what the device adds (an
/// FCM body carries the token, both carry the badge), and the two never shape each other, so a body's size is the
/// size for a reference device (empty token, no badge) plus the device's own bytes. Sizes are measured once per
/// `Trim` with the reference device, and the search runs once per distinct byte budget: the content is rendered
/// and encoded in full at most three times per platform, never per device.
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

    /// The rendering cut as `trim`, made once and kept for the other devices that get it.
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
        let withoutPayload = Trim(includesPayload: false)
        if fits(withoutPayload, budget) { return withoutPayload }
        // Each grapheme cluster takes at least one byte, so more than `limit` of them can never fit.
        if let cut = largest(\.contentLimit, below: contentLength, of: withoutPayload, within: budget) { return cut }
        let textLength = min(longestTextLength(), limit)
        return largest(
            \.textLimit, below: textLength, of: Trim(includesPayload: false, contentLimit: 0), within: budget)
    }

    /// `base` with `cut` set to the largest count below `length` that fits, by binary search (size grows with count).
    private mutating func largest(
        _ cut: WritableKeyPath<Trim, Int?>, below length: Int, of base: Trim, within budget: Int
    ) -> Trim? {
        var low = 0
        var high = length - 1
        var trim = base
        var best: Trim?
        while low <= high {
            let middle = low + (high - low) / 2
            trim[keyPath: cut] = middle
            if fits(trim, budget) {
                best = trim
                low = middle + 1
            } else {
                high = middle - 1
            }
        }
        return best
    }

    private mutating func fits(_ trim: Trim, _ budget: Int) -> Bool {
        if let size = referenceSizes[trim] { return size <= budget }
        // Measured without keeping the rendering: only the cuts devices get are kept (`rendering(_:)`), so memory
        // stays near one body per distinct budget however many cuts the searches try.
        let size = body(renderer.render(trim), "", nil).count
        referenceSizes[trim] = size
        return size <= budget
    }

    private mutating func longestTextLength() -> Int {
        if let longestText { return longestText }
        let length = renderer.longestText()
        longestText = length
        return length
    }
}
