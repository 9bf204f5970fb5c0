import Essentials
import Glibc
public import PushCore
import Synchronization

/// The device registry and the client settings in an LMDB file (`PUSH_DEVICE_STORE=lmdb:/path`): the tables live on
/// disk and in the kernel's page cache, not in the process's memory, and survive a restart. Each batch of records is
/// written in one transaction with the offsets it brings its topic to, so a restarted worker reads only what is newer
/// than what the file holds.
///
/// Layout: `devices` maps each record key `appID/clientId/type/deviceId` to the subscription's token and options (a
/// client's devices share the prefix `appID/clientId/`), `clients` maps `appID/clientId` to its settings, `offsets`
/// maps `topic/partition` to the next offset to read, and `meta` holds the format and the counts the gauges read.
/// One worker per directory: the store holds an exclusive lock on `push-worker.lock` while it is open.
///
/// A store created empty is filled without flushing each commit to the disk (the first load of a large registry
/// would spend most of its time waiting for the disk), under a marker file, `loading`, beside the data: `loaded()`
/// or `close()` flushes everything and removes the marker. A directory found holding the marker is a first load that
/// stopped without either (a crash, `kill -9`), whose file a machine crash may have left corrupt: it is emptied and
/// loaded again from the topics.
///
/// A `data.mdb` that LMDB could not map without a fault (cut short, a meta page or a tree page overwritten: LMDB 0.9
/// trusts its file and would die of SIGBUS or SIGSEGV) is found by `LMDBFileCheck` before the file is opened, moved
/// aside to `data.mdb.damaged` (replacing an older one) and the store loaded again from the topics (`recovery` says
/// so); when it cannot be moved, the opening fails naming it.
public final class LMDBDeviceStore: DeviceStore {
    private let lock: StoreDirectoryLock
    private let environment: LMDBEnvironment
    /// The damaged file this opening moved aside, when it found one.
    public let recovery: StoreRecovery?
    /// The counts as the last commit left them, read from `meta` at the start.
    private let counts: Mutex<Counts>
    /// Whether commits go unflushed: from the creation of an empty store to `loaded()`.
    private let unflushed: Mutex<Bool>

    /// The format written in a new file and required of an existing one.
    static let format = Array("push-worker device store 1".utf8)

    private struct Counts: Equatable {
        var devices = 0
        var clients = 0
        var settings = 0
        var byAppAndType: [RegistryStatistics.AppAndType: Int] = [:]
    }

    /// Opens the store in the directory `path` (creating its file when there is none), with a map of `mapBytes` to
    /// start with (it doubles when full). A file that is not LMDB, or an LMDB file of something else, is refused.
    /// A directory another process holds the lock of is refused naming the lock's file.
    public init(path: String, mapBytes: Int) throws(RegistryStoreError) {
        var loaded = Counts()
        var created = false
        lock = try StoreDirectoryLock(directory: path)
        let marker = path + "/" + Self.loadingMarker
        if access(marker, F_OK) == 0 {
            // A first load that never finished: its unflushed file cannot be trusted.
            for file in ["data.mdb", "lock.mdb"] where unlink(path + "/" + file) != 0 && errno != ENOENT {
                throw RegistryStoreError("\(path): cannot remove the unfinished load's \(file): \(Self.lastError)")
            }
        }
        recovery = try Self.moveAsideIfDamaged(path)
        environment = try LMDBEnvironment(path: path, mapBytes: mapBytes) {
            transaction, isNew throws(RegistryStoreError) in
            created = isNew
            if isNew {
                try transaction.put(.meta, Array("format".utf8), Self.format)
                return
            }
            guard let format = try transaction.get(.meta, Array("format".utf8)), format == Self.format else {
                throw RegistryStoreError("\(path): the LMDB file is not a device store of this format")
            }
            loaded = try Self.counts(in: transaction)
        }
        counts = Mutex(loaded)
        unflushed = Mutex(created)
        guard created else { return }
        try Self.createMarker(marker, in: path)
        try environment.setFlushes(false)
    }

    /// The marker of a first load whose commits are not flushed yet.
    public static let loadingMarker = "loading"

    /// The name a damaged `data.mdb` is given, beside it.
    public static let damagedFile = "data.mdb.damaged"

    /// Moves `data.mdb` aside when `LMDBFileCheck` finds it damaged (with LMDB's lock file, which describes it), so
    /// that LMDB creates a new one.
    private static func moveAsideIfDamaged(_ path: String) throws(RegistryStoreError) -> StoreRecovery? {
        let file = path + "/data.mdb"
        guard let damage = LMDBFileCheck.damage(ofFile: file) else { return nil }
        let aside = path + "/" + damagedFile
        guard rename(file, aside) == 0, unlink(path + "/lock.mdb") == 0 || errno == ENOENT, syncDirectory(path) else {
            throw RegistryStoreError("\(file): damaged (\(damage)), and cannot be moved aside: \(lastError)")
        }
        return StoreRecovery(file: file, movedTo: aside, reason: damage.kind.rawValue, detail: damage.detail)
    }

    private static var lastError: String { String(cString: strerror(errno)) }

    /// Creates the marker file and flushes it and its directory, so that it is on the disk before any unflushed commit.
    private static func createMarker(_ marker: String, in path: String) throws(RegistryStoreError) {
        let file = Glibc.open(marker, O_WRONLY | O_CREAT | O_CLOEXEC, 0o640)
        guard file >= 0 else { throw RegistryStoreError("\(path): cannot create \(loadingMarker): \(lastError)") }
        let flushed = fsync(file) == 0
        Glibc.close(file)
        guard flushed, syncDirectory(path) else {
            throw RegistryStoreError("\(path): cannot flush \(loadingMarker): \(lastError)")
        }
    }

    private static func syncDirectory(_ path: String) -> Bool {
        let directory = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { return false }
        defer { Glibc.close(directory) }
        return fsync(directory) == 0
    }

    /// Whether the store was created empty and its first load has not ended yet (its commits are not flushed).
    public var isFirstLoad: Bool { unflushed.withLock { $0 } }

    /// Both topics have been read up to where they ended at the start. After a first load: flushes the file and
    /// removes the marker. Then gives back the memory the load's write transactions left in LMDB (by opening the
    /// file again) and the file's pages the load mapped.
    public func loaded() throws(RegistryStoreError) {
        try flushFirstLoad()
        try environment.reopen()
        environment.releaseResidentPages()
    }

    /// Flushes what a first load committed and removes its marker; nothing when the store is not in a first load.
    private func flushFirstLoad() throws(RegistryStoreError) {
        try unflushed.withLock { unflushed throws(RegistryStoreError) in
            guard unflushed else { return }
            try environment.setFlushes(true)
            guard unlink(environment.path + "/" + Self.loadingMarker) == 0 || errno == ENOENT,
                Self.syncDirectory(environment.path)
            else {
                throw RegistryStoreError(
                    "\(environment.path): cannot remove \(Self.loadingMarker): \(Self.lastError)")
            }
            unflushed = false
        }
    }

    /// Refuses a file that holds offsets of other topics than `topics`: its devices came from those, and reading
    /// `topics` on top of them would keep what their compaction removed.
    public func check(topics: [String]) throws(RegistryStoreError) {
        let stored = try environment.read { transaction throws(RegistryStoreError) in
            var names: Set<String> = []
            try transaction.scan(.offsets, prefix: []) { key, _ in
                let text = String(decoding: key, as: UTF8.self)
                if let slash = text.lastIndex(of: "/") { names.insert(String(text[..<slash])) }
                return true
            }
            return names
        }
        let foreign = (stored ?? []).subtracting(topics).sorted()
        guard foreign.isEmpty else {
            throw RegistryStoreError(
                "\(environment.path): the store holds the registry of the topics \(foreign.joined(separator: ", ")), "
                    + "not \(topics.joined(separator: ", ")): give it a new directory")
        }
    }

    /// Closes the file (flushed first, when a first load was under way: the next start resumes it); later lookups
    /// find nothing, later batches fail.
    public func close() {
        try? flushFirstLoad()
        environment.close()
        lock.release()
    }

    /// Drops the file's pages from the process's resident memory (they stay in the kernel's page cache): after the
    /// initial load, which touches most of the file.
    public func releaseResidentPages() {
        environment.releaseResidentPages()
    }

    public func apply(_ batch: RegistryBatch) throws(RegistryStoreError) {
        // The counts stay locked from the read to the commit: the two topics' followers write concurrently, and each
        // commit must start from the counts the other one committed.
        try counts.withLock { counts throws(RegistryStoreError) in
            let before = counts
            counts = try environment.write { transaction throws(RegistryStoreError) -> Counts in
                var counts = before
                for change in batch.devices { try Self.apply(change, in: transaction, counts: &counts) }
                for change in batch.clients { try Self.apply(change, in: transaction, counts: &counts) }
                for (partition, offset) in batch.offsets {
                    try transaction.put(
                        .offsets, Self.offsetKey(batch.topic, partition), StoredRegistryValue.encode(offset: offset))
                }
                try Self.write(counts, in: transaction)
                return counts
            }
        }
    }

    public func offsets(of topic: String) -> [Int32: Int64] {
        let prefix = Array("\(topic)/".utf8)
        return lookup([:]) { transaction throws(RegistryStoreError) in
            var offsets: [Int32: Int64] = [:]
            try transaction.scan(.offsets, prefix: prefix) { key, value in
                if let partition = Int32(String(decoding: key.dropFirst(prefix.count), as: UTF8.self)),
                    let offset = StoredRegistryValue.offset(value)
                {
                    offsets[partition] = offset
                }
                return true
            }
            return offsets
        }
    }

    public func subscriptions(of client: ClientKey) -> [Subscription] {
        let prefix = Self.devicePrefix(client)
        return lookup([]) { transaction throws(RegistryStoreError) in
            var found: [Subscription] = []
            try transaction.scan(.devices, prefix: prefix) { key, value in
                // The prefix is the client's: only the type and the device id are left to decode.
                let rest = String(decoding: key.dropFirst(prefix.count), as: UTF8.self)
                if let parts = RegistryKey.parts(of: rest, count: 2), let type = SubscriptionType(rawValue: parts[0]),
                    let subscription = StoredRegistryValue.subscription(
                        key: DeviceKey(appID: client.appID, clientID: client.clientID, type: type, deviceID: parts[1]),
                        value: value)
                {
                    found.append(subscription)
                }
                return true
            }
            return found.sorted { ($0.type.rawValue, ByteID($0.deviceID)) < ($1.type.rawValue, ByteID($1.deviceID)) }
        }
    }

    public func settings(of client: ClientKey) -> ClientSettings? {
        lookup(nil) { transaction throws(RegistryStoreError) in
            try transaction.get(.clients, Array(client.description.utf8)).flatMap {
                StoredRegistryValue.settings(key: client, value: $0)
            }
        }
    }

    public func token(of key: DeviceKey) -> String? {
        lookup(nil) { transaction throws(RegistryStoreError) in
            try transaction.get(.devices, Array(key.description.utf8)).flatMap {
                StoredRegistryValue.subscription(key: key, value: $0)?.token
            }
        }
    }

    public func keys(ofClient clientID: String, holding token: String, on platform: Platform) -> [DeviceKey] {
        let apps = RegistryStatistics.AppAndType.apps(in: counts.withLock { $0.byAppAndType })
        return apps.flatMap { app in
            subscriptions(of: ClientKey(appID: app, clientID: clientID)).filter {
                $0.token == token && $0.type.platform == platform
            }.map(\.key)
        }
    }

    /// What the store holds; `bytes` is the size of the file's used pages.
    public var statistics: RegistryStatistics {
        let counts = counts.withLock { $0 }
        return RegistryStatistics(
            devices: counts.devices, clients: counts.clients, settings: counts.settings,
            bytes: environment.usedBytes, devicesByAppAndType: counts.byAppAndType)
    }

    /// The size of the map now.
    public var mapBytes: Int { environment.mapBytes }

    /// A lookup for the planner: a read that fails (a corrupt page) finds nothing rather than stopping the send.
    private func lookup<Result>(_ fallback: Result, _ body: (Transaction) throws(RegistryStoreError) -> Result)
        -> Result
    {
        (try? environment.read(body)) ?? fallback
    }

    private static func apply(
        _ change: RegistryChange<DeviceKey, Subscription>, in transaction: Transaction, counts: inout Counts
    ) throws(RegistryStoreError) {
        switch change {
        case .put(let key, let subscription):
            let stored = Array(key.description.utf8)
            if try !transaction.contains(.devices, stored) {
                if try !transaction.containsKey(.devices, startingWith: clientPrefix(ofDeviceKey: stored)) {
                    counts.clients += 1
                }
                counts.devices += 1
                RegistryStatistics.AppAndType(appID: key.appID, type: key.type).count(by: 1, in: &counts.byAppAndType)
            }
            try transaction.put(.devices, stored, StoredRegistryValue.encode(subscription))
        case .delete(let key):
            let stored = Array(key.description.utf8)
            guard try transaction.delete(.devices, stored) else { return }
            counts.devices -= 1
            RegistryStatistics.AppAndType(appID: key.appID, type: key.type).count(by: -1, in: &counts.byAppAndType)
            if try !transaction.containsKey(.devices, startingWith: clientPrefix(ofDeviceKey: stored)) {
                counts.clients -= 1
            }
        }
    }

    /// The prefix `appID/clientId/` that a device key's bytes share with every key of its client's devices: up to
    /// its second `/` (a key part never holds a raw `/`).
    private static func clientPrefix(ofDeviceKey key: [UInt8]) -> ArraySlice<UInt8> {
        var slashes = 0
        for (index, byte) in key.enumerated() where byte == UInt8(ascii: "/") {
            slashes += 1
            if slashes == 2 { return key[...index] }
        }
        return key[...]
    }

    private static func apply(
        _ change: RegistryChange<ClientKey, ClientSettings>, in transaction: Transaction, counts: inout Counts
    ) throws(RegistryStoreError) {
        switch change {
        case .put(let key, let settings):
            let stored = Array(key.description.utf8)
            if try transaction.get(.clients, stored) == nil { counts.settings += 1 }
            try transaction.put(.clients, stored, StoredRegistryValue.encode(settings))
        case .delete(let key):
            if try transaction.delete(.clients, Array(key.description.utf8)) { counts.settings -= 1 }
        }
    }

    private static func devicePrefix(_ client: ClientKey) -> [UInt8] { Array("\(client.description)/".utf8) }

    private static func offsetKey(_ topic: String, _ partition: Int32) -> [UInt8] {
        Array("\(topic)/\(partition)".utf8)
    }

    private static let countPrefix = "count/"

    /// The counts as `meta` keys: `count/devices`, `count/clients`, `count/settings` and `count/type/APP/TYPE` (the
    /// app percent-encoded).
    private static func write(_ counts: Counts, in transaction: Transaction) throws(RegistryStoreError) {
        for (name, value) in [("devices", counts.devices), ("clients", counts.clients), ("settings", counts.settings)] {
            try transaction.put(
                .meta, Array((countPrefix + name).utf8), StoredRegistryValue.encode(offset: Int64(value)))
        }
        var stale: [[UInt8]] = []
        try transaction.scan(.meta, prefix: Array((countPrefix + "type/").utf8)) { key, _ in
            stale.append(key)
            return true
        }
        for key in stale { try transaction.delete(.meta, key) }
        for (appAndType, value) in counts.byAppAndType {
            try transaction.put(
                .meta, typeKey(appAndType), StoredRegistryValue.encode(offset: Int64(value)))
        }
    }

    private static func typeKey(_ appAndType: RegistryStatistics.AppAndType) -> [UInt8] {
        Array((countPrefix + "type/" + RegistryKey.join([appAndType.appID, appAndType.type.rawValue])).utf8)
    }

    private static func counts(in transaction: Transaction) throws(RegistryStoreError) -> Counts {
        func count(_ name: String) throws(RegistryStoreError) -> Int {
            try transaction.get(.meta, Array((countPrefix + name).utf8)).flatMap(StoredRegistryValue.offset).map {
                Int(clamping: $0)
            } ?? 0
        }
        var counts = Counts(
            devices: try count("devices"), clients: try count("clients"), settings: try count("settings"))
        let prefix = Array((countPrefix + "type/").utf8)
        try transaction.scan(.meta, prefix: prefix) { key, value in
            let text = String(decoding: key.dropFirst(prefix.count), as: UTF8.self)
            if let parts = RegistryKey.parts(of: text, count: 2), let type = SubscriptionType(rawValue: parts[1]),
                let count = StoredRegistryValue.offset(value)
            {
                counts.byAppAndType[.init(appID: parts[0], type: type)] = Int(clamping: count)
            }
            return true
        }
        return counts
    }
}
