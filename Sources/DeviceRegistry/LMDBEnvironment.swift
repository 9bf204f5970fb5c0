internal import CLMDB
import Glibc
import Synchronization

/// The one owner of an LMDB environment (a directory holding `data.mdb` and `lock.mdb`) and its named databases.
///
/// Every transaction runs under one lock, so the map can grow in place: LMDB allows `mdb_env_set_mapsize` only while
/// no transaction of the process is open. A write that finds the map full is undone, the map doubled and the write
/// run again. Commits flush the data but not the meta page (`MDB_NOMETASYNC`): a machine crash may undo the last
/// commit, never the file's integrity, and the offsets committed with the data say where to read again. While
/// `flushes` is off (`MDB_NOSYNC`) commits flush nothing; the caller must then treat the file as disposable until it
/// turns them on again, which flushes everything.
final class LMDBEnvironment: @unchecked Sendable {
    // @unchecked Sendable: `environment` and `databases` are only used under `lock`, and the transactions, opened
    // with MDB_NOTLS, never outlive the closure they are handed to.
    private var environment: OpaquePointer
    private var databases: [MDB_dbi]
    private let lock = Mutex(false)
    let path: String

    /// The databases, by index into `names`.
    static let names = ["devices", "clients", "offsets", "meta"]

    /// Opens (creating it when the directory holds none) the environment in `path`, with a map of `mapBytes` to
    /// start with. `check` runs in the first write transaction, told whether the file is new, to refuse a foreign
    /// file before anything is written.
    init(path: String, mapBytes: Int, check: (Transaction, _ isNew: Bool) throws(RegistryStoreError) -> Void)
        throws(RegistryStoreError)
    {
        (environment, databases) = try Self.open(path: path, mapBytes: mapBytes, check: check)
        self.path = path
    }

    private static func open(
        path: String, mapBytes: Int, check: (Transaction, _ isNew: Bool) throws(RegistryStoreError) -> Void
    ) throws(RegistryStoreError) -> (OpaquePointer, [MDB_dbi]) {
        var created: OpaquePointer?
        try Self.check(mdb_env_create(&created), path, "cannot create the environment")
        guard let created else { throw RegistryStoreError("\(path): cannot create the LMDB environment") }
        do throws(RegistryStoreError) {
            try Self.check(mdb_env_set_maxdbs(created, MDB_dbi(Self.names.count)), path, "maxdbs")
            try Self.check(mdb_env_set_mapsize(created, mapBytes), path, "cannot set the map size")
            let flags = UInt32(MDB_NOTLS | MDB_NOMETASYNC | MDB_NORDAHEAD)
            try Self.check(mdb_env_open(created, path, flags, 0o640), path, "cannot open the store")
            return (created, try Self.openDatabases(created, path: path, check: check))
        } catch {
            mdb_env_close(created)
            throw error
        }
    }

    /// Turns the flushing of commits off (`MDB_NOSYNC`: a machine crash may then leave the file corrupt) or on again,
    /// which first flushes everything committed meanwhile.
    func setFlushes(_ flushes: Bool) throws(RegistryStoreError) {
        try lock.withLock { closed throws(RegistryStoreError) in
            guard !closed else { throw RegistryStoreError("\(path): the store is closed") }
            if flushes { try Self.check(mdb_env_sync(environment, 1), path, "cannot flush the store") }
            try Self.check(
                mdb_env_set_flags(environment, UInt32(MDB_NOSYNC), flushes ? 0 : 1), path, "cannot set the flushing")
        }
    }

    /// Closes the environment and opens it again on the same file with the map as it is now: LMDB keeps every page a
    /// write transaction dirtied in a free list of its own for the environment's lifetime (a large load's batches
    /// leave megabytes of them), which only closing gives back. The flushing is on again after it.
    func reopen() throws(RegistryStoreError) {
        try lock.withLock { closed throws(RegistryStoreError) in
            guard !closed else { return }
            var info = MDB_envinfo()
            mdb_env_info(environment, &info)
            mdb_env_close(environment)
            do throws(RegistryStoreError) {
                (environment, databases) = try Self.open(path: path, mapBytes: info.me_mapsize) { _, _ in }
            } catch {
                closed = true
                throw error
            }
        }
    }

    private static func openDatabases(
        _ environment: OpaquePointer, path: String, check: (Transaction, Bool) throws(RegistryStoreError) -> Void
    ) throws(RegistryStoreError) -> [MDB_dbi] {
        var handle: OpaquePointer?
        try Self.check(mdb_txn_begin(environment, nil, 0, &handle), path, "cannot begin a transaction")
        guard let handle else { throw RegistryStoreError("\(path): cannot begin a transaction") }
        var opened: [MDB_dbi] = []
        do throws(RegistryStoreError) {
            var main = MDB_dbi(0)
            try Self.check(mdb_dbi_open(handle, nil, 0, &main), path, "cannot open the main database")
            var status = MDB_stat()
            try Self.check(mdb_stat(handle, main, &status), path, "cannot read the main database")
            let isNew = status.ms_entries == 0
            for name in Self.names {
                var dbi = MDB_dbi(0)
                let code = mdb_dbi_open(handle, name, isNew ? UInt32(MDB_CREATE) : 0, &dbi)
                guard code != MDB_NOTFOUND, code != MDB_INCOMPATIBLE else {
                    throw RegistryStoreError("\(path): the LMDB file is not a device store (no '\(name)' database)")
                }
                try Self.check(code, path, "cannot open the '\(name)' database")
                opened.append(dbi)
            }
            try check(Transaction(handle: handle, databases: opened, path: path), isNew)
        } catch {
            mdb_txn_abort(handle)
            throw error
        }
        // A commit frees its transaction, whether it succeeds or not.
        try Self.check(mdb_txn_commit(handle), path, Self.cannotCommit)
        return opened
    }

    /// Runs `body` in a read-only transaction; `nil` once closed.
    func read<Result>(_ body: (Transaction) throws(RegistryStoreError) -> Result) throws(RegistryStoreError)
        -> Result?
    {
        try lock.withLock { closed throws(RegistryStoreError) -> Result? in
            guard !closed else { return nil }
            var handle: OpaquePointer?
            try Self.check(
                mdb_txn_begin(environment, nil, UInt32(MDB_RDONLY), &handle), path, "cannot begin a transaction")
            guard let handle else { throw RegistryStoreError("\(path): cannot begin a transaction") }
            defer { mdb_txn_abort(handle) }
            return try body(Transaction(handle: handle, databases: databases, path: path))
        }
    }

    /// Runs `body` in a write transaction and commits it; a full map is doubled and `body` run again from the
    /// start. After a failure nothing of `body` is kept.
    func write<Result>(_ body: (Transaction) throws(RegistryStoreError) -> Result) throws(RegistryStoreError)
        -> Result
    {
        try lock.withLock { closed throws(RegistryStoreError) -> Result in
            guard !closed else { throw RegistryStoreError("\(path): the store is closed") }
            while true {
                var handle: OpaquePointer?
                try Self.check(mdb_txn_begin(environment, nil, 0, &handle), path, "cannot begin a transaction")
                guard let handle else { throw RegistryStoreError("\(path): cannot begin a transaction") }
                let result: Result
                do throws(RegistryStoreError) {
                    result = try body(Transaction(handle: handle, databases: databases, path: path))
                } catch {
                    mdb_txn_abort(handle)
                    guard error.isMapFull else { throw error }
                    try grow()
                    continue
                }
                let code = mdb_txn_commit(handle)
                if code == MDB_MAP_FULL {
                    try grow()
                    continue
                }
                try Self.check(code, path, Self.cannotCommit)
                return result
            }
        }
    }

    private func grow() throws(RegistryStoreError) {
        var info = MDB_envinfo()
        mdb_env_info(environment, &info)
        let (doubled, overflow) = info.me_mapsize.multipliedReportingOverflow(by: 2)
        guard !overflow else { throw RegistryStoreError("\(path): the map cannot grow past \(info.me_mapsize) bytes") }
        try Self.check(mdb_env_set_mapsize(environment, doubled), path, "cannot grow the map")
    }

    /// The bytes of the pages the file uses (what the store holds, free pages included); 0 once closed.
    var usedBytes: Int {
        lock.withLock { closed in
            guard !closed else { return 0 }
            var info = MDB_envinfo()
            var status = MDB_stat()
            mdb_env_info(environment, &info)
            mdb_env_stat(environment, &status)
            let (bytes, overflow) = (info.me_last_pgno &+ 1).multipliedReportingOverflow(by: Int(status.ms_psize))
            return overflow ? .max : bytes
        }
    }

    /// The size of the map now (it doubles when full).
    var mapBytes: Int {
        lock.withLock { closed in
            guard !closed else { return 0 }
            var info = MDB_envinfo()
            mdb_env_info(environment, &info)
            return info.me_mapsize
        }
    }

    /// Tells the kernel the process no longer needs the map's pages resident: they stay in the page cache (the
    /// file's, shared and reclaimable) and are mapped again when read. LMDB names the map's address only for a fixed
    /// map, so it is found in `/proc/self/maps` by the file's path.
    func releaseResidentPages() {
        lock.withLock { closed in
            guard !closed else { return }
            for (start, end) in Self.mappings(of: path + "/data.mdb") {
                _ = madvise(UnsafeMutableRawPointer(bitPattern: start), Int(end - start), MADV_DONTNEED)
            }
        }
    }

    /// The address ranges `/proc/self/maps` lists for `file`.
    private static func mappings(of file: String) -> [(UInt, UInt)] {
        guard let maps = fopen("/proc/self/maps", "r") else { return [] }
        defer { fclose(maps) }
        var ranges: [(UInt, UInt)] = []
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, maps) > 0, let line {
            var text = String(cString: line)
            if text.hasSuffix("\n") { text.removeLast() }
            guard text.hasSuffix(" " + file), let range = text.split(separator: " ").first else { continue }
            let bounds = range.split(separator: "-").compactMap { UInt($0, radix: 16) }
            if bounds.count == 2, bounds[0] < bounds[1] { ranges.append((bounds[0], bounds[1])) }
        }
        return ranges
    }

    /// Closes the environment; every later read finds nothing and every write fails.
    func close() {
        lock.withLock { closed in
            guard !closed else { return }
            closed = true
            mdb_env_close(environment)
        }
    }

    deinit {
        close()
    }

    /// A commit fails when the disk refuses a page: LMDB reports a short write (a full disk, a quota, a file-size
    /// limit) as an I/O error.
    private static let cannotCommit = "cannot commit (the disk refused a write: full, a quota or a file-size limit?)"

    fileprivate static func check(_ code: Int32, _ path: String, _ what: String) throws(RegistryStoreError) {
        guard code != 0 else { return }
        throw RegistryStoreError(code: code, "\(path): \(what): \(String(cString: mdb_strerror(code)))")
    }
}

extension RegistryStoreError {
    fileprivate init(code: Int32, _ message: String) {
        self.init(message)
        isMapFull = code == MDB_MAP_FULL
    }
}

/// One open transaction of an `LMDBEnvironment`, valid only inside the closure it is handed to.
struct Transaction {
    fileprivate let handle: OpaquePointer
    fileprivate let databases: [MDB_dbi]
    fileprivate let path: String

    /// The named databases.
    enum Database: Int {
        case devices, clients, offsets, meta
    }

    /// The value of `key`, copied out; `nil` when absent.
    func get(_ database: Database, _ key: [UInt8]) throws(RegistryStoreError) -> [UInt8]? {
        try find(database, key).map(Self.bytes)
    }

    /// Whether `key` is there, without copying its value out.
    func contains(_ database: Database, _ key: [UInt8]) throws(RegistryStoreError) -> Bool {
        try find(database, key) != nil
    }

    /// The value of `key` where LMDB keeps it, valid until the transaction ends; `nil` when absent.
    private func find(_ database: Database, _ key: [UInt8]) throws(RegistryStoreError) -> MDB_val? {
        var found = MDB_val()
        let code = key.withUnsafeBytes { bytes in
            var keyValue = MDB_val(mv_size: bytes.count, mv_data: UnsafeMutableRawPointer(mutating: bytes.baseAddress))
            return mdb_get(handle, databases[database.rawValue], &keyValue, &found)
        }
        if code == MDB_NOTFOUND { return nil }
        try LMDBEnvironment.check(code, path, "cannot read")
        return found
    }

    /// Whether any key of `database` starts with `prefix`, without copying keys or values out.
    func containsKey(_ database: Database, startingWith prefix: ArraySlice<UInt8>) throws(RegistryStoreError) -> Bool {
        var cursor: OpaquePointer?
        try LMDBEnvironment.check(
            mdb_cursor_open(handle, databases[database.rawValue], &cursor), path, "cannot open a cursor")
        defer { mdb_cursor_close(cursor) }
        var start = Array(prefix)
        var key = MDB_val()
        var value = MDB_val()
        let code = start.withUnsafeMutableBytes { bytes in
            key = MDB_val(mv_size: bytes.count, mv_data: bytes.baseAddress)
            return mdb_cursor_get(cursor, &key, &value, MDB_SET_RANGE)
        }
        if code == MDB_NOTFOUND { return false }
        try LMDBEnvironment.check(code, path, "cannot read")
        guard key.mv_size >= prefix.count, let found = key.mv_data else { return prefix.isEmpty }
        return UnsafeRawBufferPointer(start: found, count: prefix.count).elementsEqual(prefix)
    }

    /// Sets `key` to `value`.
    func put(_ database: Database, _ key: [UInt8], _ value: [UInt8]) throws(RegistryStoreError) {
        let code = key.withUnsafeBytes { keyBytes in
            value.withUnsafeBytes { valueBytes in
                var keyValue = MDB_val(
                    mv_size: keyBytes.count, mv_data: UnsafeMutableRawPointer(mutating: keyBytes.baseAddress))
                var dataValue = MDB_val(
                    mv_size: valueBytes.count, mv_data: UnsafeMutableRawPointer(mutating: valueBytes.baseAddress))
                return mdb_put(handle, databases[database.rawValue], &keyValue, &dataValue, 0)
            }
        }
        try LMDBEnvironment.check(code, path, "cannot write")
    }

    /// Deletes `key`; whether it was there.
    @discardableResult
    func delete(_ database: Database, _ key: [UInt8]) throws(RegistryStoreError) -> Bool {
        let code = key.withUnsafeBytes { bytes in
            var keyValue = MDB_val(mv_size: bytes.count, mv_data: UnsafeMutableRawPointer(mutating: bytes.baseAddress))
            return mdb_del(handle, databases[database.rawValue], &keyValue, nil)
        }
        if code == MDB_NOTFOUND { return false }
        try LMDBEnvironment.check(code, path, "cannot delete")
        return true
    }

    /// Every key that starts with `prefix`, with its value, in key order, until `body` returns `false`.
    func scan(
        _ database: Database, prefix: [UInt8], _ body: (_ key: [UInt8], _ value: [UInt8]) -> Bool
    ) throws(RegistryStoreError) {
        var cursor: OpaquePointer?
        try LMDBEnvironment.check(
            mdb_cursor_open(handle, databases[database.rawValue], &cursor), path, "cannot open a cursor")
        defer { mdb_cursor_close(cursor) }
        var start = prefix
        var key = MDB_val()
        var value = MDB_val()
        var code = start.withUnsafeMutableBytes { bytes in
            key = MDB_val(mv_size: bytes.count, mv_data: bytes.baseAddress)
            return prefix.isEmpty
                ? mdb_cursor_get(cursor, &key, &value, MDB_FIRST) : mdb_cursor_get(cursor, &key, &value, MDB_SET_RANGE)
        }
        while code == 0 {
            let found = Self.bytes(key)
            guard found.starts(with: prefix), body(found, Self.bytes(value)) else { return }
            code = mdb_cursor_get(cursor, &key, &value, MDB_NEXT)
        }
        if code != MDB_NOTFOUND { try LMDBEnvironment.check(code, path, "cannot read") }
    }

    private static func bytes(_ value: MDB_val) -> [UInt8] {
        guard let data = value.mv_data, value.mv_size > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: data, count: value.mv_size))
    }
}
