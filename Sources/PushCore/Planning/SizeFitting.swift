import Essentials

/// Makes an event's requests to one platform fit the provider's size limit: drop the forwarded payload, then cut
/// the content on a grapheme boundary (with `…`), then cut every text; `nil` when even that does not fit.
///
/// Most renderings fit whole: `fittedBody` hands the device the uncut rendering's body, with no search. That body is
/// built once per badge, for the first device with that badge, and shared by the others: as it is where the body
/// does not hold the token (APNs), with their own token copied in place of the first one's where it does (FCM; a token
/// JSON would escape gets a body of its own). An event with one device builds one body and keeps no table.
///
/// Otherwise one search serves every device of the event: a body's size is the size for a reference device (empty
/// token, no badge) plus what the device adds (its token as the builder writes it, its badge, measured once per
/// value), so the content is rendered a few times per platform and distinct byte budget, never per device.
struct SizeFitting {
    let limit: Int
    private let renderer: PushRenderer
    /// The platform's body for a device's token and badge (the reference device's: an empty token).
    private let body: (RenderedPush, _ token: String, _ badge: Int?) -> [UInt8]
    /// The bytes a token adds to the body; `nil` when the body does not hold the token.
    private let tokenBytes: ((String) -> Int)?
    /// Where the token's bytes go in a body written for an empty token; `nil` when the body does not hold the token.
    private let tokenOffset: Int?
    /// The content's length in grapheme clusters, counted up to `limit` (more can never fit); counted once a search
    /// needs it, which a rendering that fits whole never does.
    private var contentLength: Int?
    private var renderings: [Trim: RenderedPush] = [:]
    private var referenceSizes: [Trim: Int] = [:]
    private var trimsByBudget: [Int: Trim?] = [:]
    private var badgeBytes: [Int: Int] = [:]
    private var longestText: Int?
    /// The last measured rendering that fitted: the answer of a search, which would otherwise be rendered again.
    private var lastFit: (trim: Trim, push: RenderedPush)?
    /// The uncut rendering while whole bodies may still fit.
    private var whole = Whole.notRendered
    /// The whole body of the first badge seen, then of the others by badge (most events have one badge).
    private var firstWholeBody: (badge: Int?, body: WholeBody)?
    private var wholeBodies: [Int?: WholeBody] = [:]

    /// A whole body as built for the first device with its badge: where the body holds the token, that device's
    /// token takes `tokenLength` bytes at `tokenOffset`.
    private struct WholeBody {
        var bytes: [UInt8]
        var tokenLength: Int
    }

    private enum Whole {
        case notRendered
        case rendered(RenderedPush)
        /// A whole body did not fit: the rendering is dropped and later devices go to the search.
        case doesNotFit
    }

    init(
        limit: Int, renderer: PushRenderer, body: @escaping (RenderedPush, String, Int?) -> [UInt8],
        token: (offset: Int, bytes: (String) -> Int)?
    ) {
        self.limit = limit
        self.renderer = renderer
        self.body = body
        tokenBytes = token?.bytes
        tokenOffset = token?.offset
    }

    /// The rendering cut as `trim`, made once and kept for the other devices that get it.
    private mutating func rendering(_ trim: Trim) -> RenderedPush {
        if let rendering = renderings[trim] { return rendering }
        let rendering = lastFit?.trim == trim ? lastFit?.push ?? renderer.render(trim) : renderer.render(trim)
        renderings[trim] = rendering
        return rendering
    }

    /// The device's body and the rendering it was built from: the whole rendering's when it fits, else the largest
    /// cut's that does; nil when even every text cut does not fit.
    ///
    /// The whole body is built first, as the request needs it; once one does not fit, the others go straight to the
    /// search (which finds the whole rendering again for a device it fits), so at most one body is built in vain.
    mutating func fittedBody(token: String, badge: Int?) -> (push: RenderedPush, body: [UInt8])? {
        if let whole = wholeRendering() {
            if let wholeBody = wholeBody(of: whole, token: token, badge: badge) { return (whole, wholeBody) }
            self.whole = .doesNotFit
        }
        guard let trim = trim(token: token, badge: badge) else { return nil }
        let push = rendering(trim)
        return (push, body(push, token, badge))
    }

    /// The device's body of the uncut rendering, `nil` when it does not fit: the badge's shared body, with the token
    /// copied in where the body holds it.
    private mutating func wholeBody(of whole: RenderedPush, token: String, badge: Int?) -> [UInt8]? {
        if tokenOffset != nil, !JSONWriter.writesAsIs(token) {
            let own = body(whole, token, badge)
            return own.count <= limit ? own : nil
        }
        guard let shared = sharedWholeBody(badge) else {
            let own = body(whole, token, badge)
            let tokenLength = tokenOffset == nil ? 0 : token.utf8.count
            remember(WholeBody(bytes: own, tokenLength: tokenLength), badge: badge)
            return own.count <= limit ? own : nil
        }
        guard let tokenOffset else { return shared.bytes.count <= limit ? shared.bytes : nil }
        let count = shared.bytes.count - shared.tokenLength + token.utf8.count
        guard count <= limit else { return nil }
        var spliced: [UInt8] = []
        spliced.reserveCapacity(count)
        spliced.append(contentsOf: shared.bytes[..<tokenOffset])
        spliced.append(contentsOf: token.utf8)
        spliced.append(contentsOf: shared.bytes[(tokenOffset + shared.tokenLength)...])
        return spliced
    }

    private func sharedWholeBody(_ badge: Int?) -> WholeBody? {
        if let firstWholeBody, firstWholeBody.badge == badge { return firstWholeBody.body }
        return wholeBodies[badge]
    }

    private mutating func remember(_ whole: WholeBody, badge: Int?) {
        if firstWholeBody == nil {
            firstWholeBody = (badge, whole)
        } else {
            wholeBodies[badge] = whole
        }
    }

    /// The uncut rendering while whole bodies may still fit, made once.
    private mutating func wholeRendering() -> RenderedPush? {
        switch whole {
        case .doesNotFit:
            return nil
        case .rendered(let rendering):
            return rendering
        case .notRendered:
            let rendering = renderer.whole
            whole = .rendered(rendering)
            return rendering
        }
    }

    /// The largest cut of the rendering whose body fits the limit for a device with this token and badge.
    private mutating func trim(token: String, badge: Int?) -> Trim? {
        let deviceBytes = (tokenBytes?(token) ?? 0) + bytes(ofBadge: badge)
        let budget = limit - deviceBytes
        if let known = trimsByBudget[budget] { return known }
        let trim = largestTrim(within: budget)
        trimsByBudget[budget] = trim
        return trim
    }

    /// What `badge` adds to the reference body, measured once per value.
    private mutating func bytes(ofBadge badge: Int?) -> Int {
        guard let badge else { return 0 }
        if let known = badgeBytes[badge] { return known }
        let reference = rendering(Trim(includesPayload: false, contentLimit: 0, textLimit: 0))
        let added = body(reference, "", badge).count - body(reference, "", nil).count
        badgeBytes[badge] = added
        return added
    }

    private mutating func largestTrim(within budget: Int) -> Trim? {
        if fits(Trim(), budget) { return Trim() }
        let withoutPayload = Trim(includesPayload: false)
        if fits(withoutPayload, budget) { return withoutPayload }
        // Each grapheme cluster takes at least one byte, so more than `limit` of them can never fit.
        if let cut = largest(\.contentLimit, below: countedContentLength(), of: withoutPayload, within: budget) {
            return cut
        }
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
        // Only the last rendering that fitted is kept besides the cuts devices get (`rendering(_:)`), so memory
        // stays near one body per distinct budget however many cuts the searches try.
        let push = renderer.render(trim)
        let size = body(push, "", nil).count
        referenceSizes[trim] = size
        guard size <= budget else { return false }
        lastFit = (trim, push)
        return true
    }

    private mutating func countedContentLength() -> Int {
        if let contentLength { return contentLength }
        let length = renderer.visibleContent.graphemeCount(upTo: limit)
        contentLength = length
        return length
    }

    private mutating func longestTextLength() -> Int {
        if let longestText { return longestText }
        let length = renderer.longestText()
        longestText = length
        return length
    }
}
