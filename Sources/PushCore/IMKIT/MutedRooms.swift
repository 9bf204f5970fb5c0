import Essentials

/// The rooms one client muted, compared as bytes (`ByteID`) and kept compact: the ids' UTF-8 one after the other in
/// byte order, in one array, and where each one ends in another. A settings record of 1,000 rooms costs its rooms'
/// bytes and 4 bytes a room, not a hash set and a string per room. Pure.
public struct MutedRooms: Sendable, Equatable, ExpressibleByArrayLiteral, CustomStringConvertible {
    private var bytes: [UInt8] = []
    private var ends: [UInt32] = []

    /// `rooms`, each once.
    public init(_ rooms: some Sequence<String>) {
        let sorted = Set(rooms.map(ByteID.init)).sorted()
        bytes.reserveCapacity(sorted.reduce(0) { $0 + $1.text.utf8.count })
        ends.reserveCapacity(sorted.count)
        for room in sorted {
            bytes += room.text.utf8
            ends.append(UInt32(bytes.count))
        }
    }

    public init(arrayLiteral rooms: String...) {
        self.init(rooms)
    }

    /// How many rooms.
    public var count: Int { ends.count }

    public var isEmpty: Bool { ends.isEmpty }

    /// The rooms, in byte order.
    public var rooms: [String] { ends.indices.map { String(decoding: room(at: $0), as: UTF8.self) } }

    /// Whether `room` is one of them, byte for byte.
    public func contains(_ room: String) -> Bool {
        room.withUTF8Bytes { wanted in
            var low = 0
            var high = ends.count
            while low < high {
                let middle = (low + high) / 2
                let candidate = self.room(at: middle)
                if candidate.elementsEqual(wanted) { return true }
                if candidate.lexicographicallyPrecedes(wanted) { low = middle + 1 } else { high = middle }
            }
            return false
        }
    }

    /// The bytes the two arrays take on the heap: each one's elements and its header (none for an empty one).
    public var storageBytes: Int {
        Self.heapBytes(capacity: bytes.capacity, stride: 1)
            + Self.heapBytes(capacity: ends.capacity, stride: MemoryLayout<UInt32>.stride)
    }

    /// A Swift array's header on the heap: the object's header, the count and the capacity.
    static let arrayHeaderBytes = 32

    private static func heapBytes(capacity: Int, stride: Int) -> Int {
        capacity == 0 ? 0 : arrayHeaderBytes + capacity * stride
    }

    public var description: String { rooms.description }

    private func room(at index: Int) -> ArraySlice<UInt8> {
        bytes[(index == 0 ? 0 : Int(ends[index - 1]))..<Int(ends[index])]
    }
}
