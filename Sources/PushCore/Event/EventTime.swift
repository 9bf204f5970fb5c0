import Essentials
public import Foundation

/// The range an event's `createdAt` may take, and the time its time to live counts from.
///
/// `createdAt` must lie within 100 years of the time the event is decoded, else the event is a decode error: no date
/// arithmetic on it can overflow downstream. For the time to live, a `createdAt` later than now plus
/// `maximumClockSkew` counts as now plus the skew, so a far-future value cannot keep a push alive past its time.
public enum EventTime {
    /// How far `createdAt` may lie from now, either way: 100 years of 365.25 days.
    public static let maximumDistance: TimeInterval = 100 * 365.25 * 86_400
    /// How far ahead of the worker's clock a sender's clock may be: 5 minutes.
    public static let maximumClockSkew: TimeInterval = 300

    /// Whether `date` lies within `maximumDistance` of `now`.
    static func isPlausible(_ date: Date, now: Date) -> Bool {
        abs(date.timeIntervalSince(now)) <= maximumDistance
    }

    /// When the time to live of an event created at `createdAt` starts: `createdAt`, but no later than `now` plus
    /// `maximumClockSkew`; `now` when the event has no `createdAt`.
    static func timeToLiveStart(createdAt: Date?, now: Date) -> Date {
        guard let createdAt else { return now }
        return min(createdAt, now.addingTimeInterval(maximumClockSkew))
    }
}

extension ChatMessageEvent {
    /// When the time to live starts: `createdAt`, but no later than `now` plus `EventTime.maximumClockSkew`;
    /// `now` when the event has no `createdAt`.
    public func timeToLiveStart(now: Date) -> Date {
        EventTime.timeToLiveStart(createdAt: createdAt, now: now)
    }

    /// `createdAt` in whole epoch milliseconds (rounded): always in range, since the decoder keeps it within
    /// 100 years of now.
    public var createdAtEpochMillis: Int64? {
        createdAt.map { Int64(clampingRoundedDown: ($0.timeIntervalSince1970 * 1000).rounded()) }
    }
}
