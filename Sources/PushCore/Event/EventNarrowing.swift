import Essentials

extension ChatMessageEvent {
    /// The event decoded from `source` as JSON bytes with only the given devices left (recipients without any
    /// dropped), every other field, unknown ones included, unchanged. For retry and dead-letter records. Static, on
    /// the record's bytes: a caller keeping it for later holds the bytes, not a copy of the whole event.
    public static func narrowed(_ source: [UInt8], to addresses: some Sequence<DeviceAddress>) -> [UInt8] {
        var kept: [Int: Set<Int>] = [:]
        for address in addresses { kept[address.recipient, default: []].insert(address.device) }
        // The rare path (retries, dead letters) parses the record again rather than every record keeping a tree.
        guard case .object(let members)? = try? JSONParser.parse(source) else { return source }
        var writer = JSONWriter(reservingCapacity: 1024)
        writer.beginObject()
        for member in members {
            writer.key(member.key)
            guard member.key == "recipients", case .array(let recipientValues) = member.value else {
                writer.value(member.value)
                continue
            }
            writer.beginArray()
            for (recipientIndex, recipientValue) in recipientValues.enumerated() {
                guard let devices = kept[recipientIndex] else { continue }
                writer.value(Self.keeping(devices, in: recipientValue))
            }
            writer.endArray()
        }
        writer.endObject()
        return writer.bytes
    }

    private static func keeping(_ devices: Set<Int>, in recipient: JSONValue) -> JSONValue {
        guard case .object(let members) = recipient else { return recipient }
        return .object(
            members.map { member in
                guard member.key == "devices", case .array(let deviceValues) = member.value else { return member }
                let narrowed = deviceValues.enumerated().filter { devices.contains($0.offset) }.map(\.element)
                return JSONMember(member.key, .array(narrowed))
            })
    }
}
