import Essentials
import PushCore

/// One client's subscriptions as the memory store keeps them: one byte array, its entries in the order lookups return
/// them (by type, then device id as bytes). Each entry is the type and the device id as texts, then the
/// subscription's stored value (`StoredRegistryValue`) as a text: a client costs one allocation, not a dictionary and
/// a string per token. Pure.
struct DeviceList {
    private(set) var bytes: [UInt8] = []

    var isEmpty: Bool { bytes.isEmpty }

    private struct Entry {
        var type: SubscriptionType
        var deviceID: ByteID
        var value: ArraySlice<UInt8>

        var order: (String, ByteID) { (type.rawValue, deviceID) }
    }

    private var entries: [Entry] {
        var reader = StoredRegistryValue.Reader(bytes)
        var entries: [Entry] = []
        while !reader.isAtEnd {
            guard let type = reader.text().flatMap(SubscriptionType.init(rawValue:)), let deviceID = reader.text(),
                let value = reader.textRange()
            else { break }
            entries.append(Entry(type: type, deviceID: ByteID(deviceID), value: bytes[value]))
        }
        return entries
    }

    private static func encoded(_ entries: [Entry]) -> [UInt8] {
        var writer = StoredRegistryValue.Writer()
        for entry in entries {
            writer.text(entry.type.rawValue)
            writer.text(entry.deviceID.text)
            writer.number(UInt64(entry.value.count))
            writer.bytes += entry.value
        }
        // Exactly as large as it must be: the writer's growth would leave a list up to twice its size.
        let encoded = writer.bytes
        return [UInt8](unsafeUninitializedCapacity: encoded.count) { buffer, count in
            count = buffer.initialize(fromContentsOf: encoded)
        }
    }

    /// The subscriptions of `client`, whose list this is.
    func subscriptions(of client: ClientKey) -> [Subscription] {
        entries.compactMap { entry in
            StoredRegistryValue.subscription(
                key: DeviceKey(
                    appID: client.appID, clientID: client.clientID, type: entry.type, deviceID: entry.deviceID.text),
                value: entry.value)
        }
    }

    /// The subscription of `key`, if the list holds one.
    func subscription(_ key: DeviceKey) -> Subscription? {
        entries.first { $0.type == key.type && $0.deviceID == ByteID(key.deviceID) }.flatMap {
            StoredRegistryValue.subscription(key: key, value: $0.value)
        }
    }

    /// Puts `subscription` in its place, replacing the one of the same type and device id; whether it is new.
    mutating func put(_ subscription: Subscription) -> Bool {
        var entries = entries
        let entry = Entry(
            type: subscription.type, deviceID: ByteID(subscription.deviceID),
            value: ArraySlice(StoredRegistryValue.encode(subscription)))
        let isNew: Bool
        if let index = entries.firstIndex(where: { $0.type == entry.type && $0.deviceID == entry.deviceID }) {
            entries[index] = entry
            isNew = false
        } else {
            entries.insert(entry, at: entries.firstIndex { $0.order > entry.order } ?? entries.endIndex)
            isNew = true
        }
        bytes = Self.encoded(entries)
        return isNew
    }

    /// Removes the subscription of `type` and `deviceID`; whether there was one.
    mutating func remove(type: SubscriptionType, deviceID: String) -> Bool {
        var entries = entries
        let deviceID = ByteID(deviceID)
        guard let index = entries.firstIndex(where: { $0.type == type && $0.deviceID == deviceID }) else {
            return false
        }
        entries.remove(at: index)
        bytes = Self.encoded(entries)
        return true
    }
}
