/// Whether an LMDB file (`data.mdb`, format 1 of LMDB 0.9 on a 64-bit machine) can be mapped without a fault: its
/// two meta pages, its size against the last page the newer one names, and every page the B-trees reach (the free
/// list, the main database and each named one) are read with plain reads and checked against what LMDB dereferences
/// without checking — page numbers, node offsets, key and data sizes, overflow runs, the free list's page numbers.
/// LMDB 0.9 trusts its file: a page number past the end of the file makes a read die of SIGBUS, past the map of
/// SIGSEGV. A file that passes can still hold wrong bytes inside keys and values; the store decodes those as hostile.
/// Pure: the file is read through `read`.
struct LMDBFileCheck {
    /// Why a file cannot be opened; `kind` is a metric label.
    struct Damage: Error, Sendable, Equatable, CustomStringConvertible {
        enum Kind: String, Sendable, CaseIterable {
            /// A meta page is not LMDB's (magic, version, page size).
            case meta
            /// The file ends before the last page its meta page names.
            case truncated
            /// A page the trees reach is not what its parent says.
            case page
            /// The file cannot be read.
            case unreadable
        }

        var kind: Kind
        var detail: String

        var description: String { detail }
    }

    /// `read(offset, count)` returns the file's `count` bytes at `offset`, or fewer at its end (nil: a read error).
    typealias Read = (_ offset: Int, _ count: Int) -> [UInt8]?

    private let read: Read
    private let pageSize: Int
    private let lastPage: Int
    private var visited: [Bool]
    /// The pages the free list names: none of them may be in a tree, LMDB would write over it.
    private var free: [Bool]

    // The layout of LMDB 0.9's pages (`mdb.c`): a 16-byte header — page number (8 bytes), padding (2), flags (2),
    // then `lower` and `upper` (2 each) or an overflow run's page count (4) — then 2-byte node offsets.
    private static let headerSize = 16
    private static let nodeHeaderSize = 8
    private static let metaSize = 136
    private static let magic: UInt32 = 0xBEEF_C0DE
    private static let dataVersion: UInt32 = 1
    private static let noPage = UInt64.max
    private static let maximumDepth = 32

    private enum PageFlag {
        static let branch: UInt16 = 0x01
        static let leaf: UInt16 = 0x02
        static let overflow: UInt16 = 0x04
        static let meta: UInt16 = 0x08
        /// Flags LMDB keeps only in memory: `P_DIRTY`, `P_LOOSE`, `P_KEEP`.
        static let inMemory: UInt16 = 0x10 | 0x4000 | 0x8000
    }

    private enum NodeFlag {
        static let bigData: UInt16 = 0x01
        static let subDatabase: UInt16 = 0x02
    }

    /// What a tree's records are, which says how its leaves are checked.
    private enum Tree {
        /// The free list: keys are transaction ids, values lists of page numbers.
        case free
        /// The main database: the named databases' records.
        case main
        /// A named database: keys and values are the store's.
        case named
    }

    /// One database record (`MDB_db`, 48 bytes): its depth and its root page.
    private struct Database {
        var depth: Int
        var root: UInt64

        init(_ bytes: ArraySlice<UInt8>) {
            let start = bytes.startIndex
            depth = Int(LMDBFileCheck.integer(bytes, at: start + 6, as: UInt16.self))
            root = LMDBFileCheck.integer(bytes, at: start + 40, as: UInt64.self)
        }
    }

    /// Checks the file of `size` bytes; `nil` when it can be opened, else why not. An empty file is sound: LMDB
    /// writes a new one.
    static func damage(fileSize size: Int, read: @escaping Read) -> Damage? {
        guard size > 0 else { return nil }
        do throws(Damage) {
            let first = try meta(at: 0, read: read)
            let second = try meta(at: first.pageSize, read: read)
            guard second.pageSize == first.pageSize else {
                throw Damage(kind: .meta, detail: "the meta pages disagree on the page size")
            }
            let newer = second.transaction > first.transaction ? second : first
            let (pages, overflow) = newer.lastPage.addingReportingOverflow(1)
            let (needed, tooLarge) = pages.multipliedReportingOverflow(by: newer.pageSize)
            guard !overflow, !tooLarge, needed <= size else {
                throw Damage(
                    kind: .truncated,
                    detail: "the file has \(size) bytes, its meta page names \(newer.lastPage + 1) pages of "
                        + "\(newer.pageSize) bytes")
            }
            var check = LMDBFileCheck(read: read, pageSize: newer.pageSize, lastPage: newer.lastPage)
            try check.walk(newer.free, as: .free)
            try check.walk(newer.main, as: .main)
            return nil
        } catch {
            return error
        }
    }

    private init(read: @escaping Read, pageSize: Int, lastPage: Int) {
        self.read = read
        self.pageSize = pageSize
        self.lastPage = lastPage
        visited = Array(repeating: false, count: lastPage + 1)
        free = visited
    }

    private struct Meta {
        var pageSize: Int
        var lastPage: Int
        var transaction: UInt64
        var free: Database
        var main: Database
    }

    private static func meta(at offset: Int, read: Read) throws(Damage) -> Meta {
        let which = offset == 0 ? "first" : "second"
        guard let bytes = read(offset, headerSize + metaSize) else {
            throw Damage(kind: .unreadable, detail: "cannot read the \(which) meta page")
        }
        guard bytes.count == headerSize + metaSize else {
            throw Damage(kind: .truncated, detail: "the file ends inside the \(which) meta page")
        }
        let flags = integer(bytes, at: 10, as: UInt16.self)
        guard flags & PageFlag.meta != 0, integer(bytes, at: 16, as: UInt32.self) == magic else {
            throw Damage(kind: .meta, detail: "the \(which) meta page is not LMDB's")
        }
        guard integer(bytes, at: 20, as: UInt32.self) == dataVersion else {
            throw Damage(kind: .meta, detail: "the \(which) meta page is of another LMDB format")
        }
        // The page size is kept in the free list's record, in its padding.
        let pageSize = Int(integer(bytes, at: 40, as: UInt32.self))
        guard (512...65536).contains(pageSize), pageSize & (pageSize - 1) == 0 else {
            throw Damage(kind: .meta, detail: "the \(which) meta page names a page size of \(pageSize) bytes")
        }
        let lastPage = integer(bytes, at: 136, as: UInt64.self)
        guard lastPage >= 1, lastPage < UInt64(Int.max / pageSize) else {
            throw Damage(kind: .meta, detail: "the \(which) meta page names \(lastPage) as its last page")
        }
        return Meta(
            pageSize: pageSize, lastPage: Int(lastPage), transaction: integer(bytes, at: 144, as: UInt64.self),
            free: Database(bytes[40..<88]), main: Database(bytes[88..<136]))
    }

    private mutating func walk(_ database: Database, as tree: Tree) throws(Damage) {
        guard database.root != Self.noPage else { return }
        try visit(database.root, level: 1, in: tree)
    }

    /// Checks the page `number` and, through its nodes, every page below it.
    private mutating func visit(_ number: UInt64, level: Int, in tree: Tree) throws(Damage) {
        guard level <= Self.maximumDepth else { throw damaged(number, "is deeper than \(Self.maximumDepth) levels") }
        let page = try claim(number, pages: 1)
        let bytes = try self.page(page, count: pageSize)
        let flags = Self.integer(bytes, at: 10, as: UInt16.self) & ~PageFlag.inMemory
        let lower = Int(Self.integer(bytes, at: 12, as: UInt16.self))
        let upper = Int(Self.integer(bytes, at: 14, as: UInt16.self))
        guard flags == PageFlag.branch || flags == PageFlag.leaf else {
            throw damaged(number, "is neither a branch nor a leaf (flags \(flags))")
        }
        guard lower >= Self.headerSize, (lower - Self.headerSize) % 2 == 0, lower <= upper, upper <= pageSize else {
            throw damaged(number, "has its free space at \(lower)–\(upper)")
        }
        let count = (lower - Self.headerSize) / 2
        if flags == PageFlag.branch, count == 0 { throw damaged(number, "is a branch without nodes") }
        for index in 0..<count {
            let node = Int(Self.integer(bytes, at: Self.headerSize + 2 * index, as: UInt16.self))
            guard node >= upper, node + Self.nodeHeaderSize <= pageSize else {
                throw damaged(number, "has node \(index) at \(node)")
            }
            let low = UInt64(Self.integer(bytes, at: node, as: UInt16.self))
            let high = UInt64(Self.integer(bytes, at: node + 2, as: UInt16.self))
            let nodeFlags = Self.integer(bytes, at: node + 4, as: UInt16.self)
            let keyEnd = node + Self.nodeHeaderSize + Int(Self.integer(bytes, at: node + 6, as: UInt16.self))
            guard keyEnd <= pageSize else { throw damaged(number, "has node \(index)'s key past the page") }
            if flags == PageFlag.branch {
                // A branch node's child: 48 bits across the size and flag fields.
                try visit(low | high << 16 | UInt64(nodeFlags) << 32, level: level + 1, in: tree)
            } else {
                try leaf(
                    bytes, page: number, node: index, data: keyEnd, size: Int(low | high << 16), flags: nodeFlags,
                    in: tree)
            }
        }
    }

    /// Checks a leaf node's data: in the page, in an overflow run, or a named database's record.
    private mutating func leaf(
        _ bytes: [UInt8], page number: UInt64, node index: Int, data start: Int, size: Int, flags: UInt16, in tree: Tree
    ) throws(Damage) {
        switch flags {
        case 0:
            guard start + size <= pageSize else { throw damaged(number, "has node \(index)'s value past the page") }
            if tree == .free { try pageList(bytes[start..<start + size], in: number) }
        case NodeFlag.bigData:
            guard start + 8 <= pageSize, size > 0 else { throw damaged(number, "has node \(index)'s overflow cut") }
            let first = Self.integer(bytes, at: start, as: UInt64.self)
            let pages = (Self.headerSize + size + pageSize - 1) / pageSize
            let run = try claim(first, pages: pages)
            let header = try page(run, count: Self.headerSize)
            guard Self.integer(header, at: 10, as: UInt16.self) & ~PageFlag.inMemory == PageFlag.overflow,
                Int(Self.integer(header, at: 12, as: UInt32.self)) >= pages
            else { throw damaged(first, "is not the overflow run of \(pages) pages its parent names") }
            if tree == .free {
                let value = try page(run, count: Self.headerSize + size)
                try pageList(value[Self.headerSize...], in: first)
            }
        case NodeFlag.subDatabase where tree == .main:
            guard size == 48, start + size <= pageSize else {
                throw damaged(number, "has node \(index)'s database record of \(size) bytes")
            }
            try walk(Database(bytes[start..<start + size]), as: .named)
        default:
            throw damaged(number, "has node \(index) with flags \(flags)")
        }
    }

    /// A free-list value: a count, then that many page numbers, each one of the file's.
    private mutating func pageList(_ value: ArraySlice<UInt8>, in number: UInt64) throws(Damage) {
        guard value.count >= 8, value.count % 8 == 0,
            Self.integer(value, at: value.startIndex, as: UInt64.self) == UInt64(value.count / 8 - 1)
        else { throw damaged(number, "holds a free list of \(value.count) bytes that does not count its pages") }
        for offset in stride(from: value.startIndex + 8, to: value.endIndex, by: 8) {
            let free = Self.integer(value, at: offset, as: UInt64.self)
            guard free >= 2, free <= UInt64(lastPage), !visited[Int(free)] else {
                throw damaged(number, "lists page \(free) as free")
            }
            self.free[Int(free)] = true
        }
    }

    /// The page `number` as an index, after checking that it and the `pages - 1` after it are data pages of the
    /// file that no other node reached first (a loop, or two parents of one page).
    private mutating func claim(_ number: UInt64, pages: Int) throws(Damage) -> Int {
        guard number >= 2, number <= UInt64(lastPage), UInt64(pages) <= UInt64(lastPage) - number + 1 else {
            throw damaged(number, "is not a data page of the file (the last is \(lastPage))")
        }
        let first = Int(number)
        for page in first..<first + pages {
            guard !visited[page] else { throw damaged(UInt64(page), "is reached twice") }
            guard !free[page] else { throw damaged(UInt64(page), "is in a tree and in the free list") }
            visited[page] = true
        }
        return first
    }

    /// The first `count` bytes of page `index`, which must hold its number.
    private func page(_ index: Int, count: Int) throws(Damage) -> [UInt8] {
        guard let bytes = read(index * pageSize, count) else {
            throw Damage(kind: .unreadable, detail: "cannot read page \(index)")
        }
        guard bytes.count == count else { throw damaged(UInt64(index), "is cut by the end of the file") }
        guard Self.integer(bytes, at: 0, as: UInt64.self) == UInt64(index) else {
            throw damaged(UInt64(index), "holds another page's number")
        }
        return bytes
    }

    private func damaged(_ number: UInt64, _ what: String) -> Damage {
        Damage(kind: .page, detail: "page \(number) \(what)")
    }

    /// The little-endian integer at `offset`, an index of `bytes` (the caller checked the bounds).
    private static func integer<Value: FixedWidthInteger & UnsignedInteger>(
        _ bytes: ArraySlice<UInt8>, at offset: Int, as: Value.Type
    ) -> Value {
        var value: Value = 0
        for byte in 0..<Value.bitWidth / 8 { value |= Value(bytes[offset + byte]) << (8 * byte) }
        return value
    }

    private static func integer<Value: FixedWidthInteger & UnsignedInteger>(
        _ bytes: [UInt8], at offset: Int, as type: Value.Type
    ) -> Value {
        integer(bytes[...], at: offset, as: type)
    }
}
