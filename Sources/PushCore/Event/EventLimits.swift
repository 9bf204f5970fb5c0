/// Bounds on what one event may contain; larger events are dead-lettered instead of exhausting memory.
public struct EventLimits: Sendable, Equatable {
    /// The largest record value accepted, in bytes (default 1 MiB).
    public var maximumRecordBytes: Int
    /// The most recipients one event may list.
    public var maximumRecipients: Int
    /// The most devices one recipient may list.
    public var maximumDevicesPerRecipient: Int

    public init(
        maximumRecordBytes: Int = 1 << 20, maximumRecipients: Int = 10_000, maximumDevicesPerRecipient: Int = 100
    ) {
        self.maximumRecordBytes = maximumRecordBytes
        self.maximumRecipients = maximumRecipients
        self.maximumDevicesPerRecipient = maximumDevicesPerRecipient
    }
}
