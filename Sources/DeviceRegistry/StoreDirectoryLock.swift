import Glibc
import Synchronization

/// An exclusive lock on a file in a store's directory (`flock`), held from the store's opening to its closing: a
/// second process (or a second opening in this one) that finds it held is refused, naming the file. The kernel drops
/// the lock when its holder exits, however it ends, so a worker killed with `kill -9` leaves nothing to clean up.
final class StoreDirectoryLock: Sendable {
    /// The file's name in the directory.
    static let fileName = "push-worker.lock"

    /// The locked file's descriptor; `nil` once released.
    private let descriptor: Mutex<Int32?>

    /// Takes the lock of the directory `path`, creating its file when there is none.
    init(directory path: String) throws(RegistryStoreError) {
        let file = path + "/" + Self.fileName
        let descriptor = Glibc.open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0o640)
        guard descriptor >= 0 else {
            throw RegistryStoreError("\(file): cannot open the store's lock: \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let held = errno == EWOULDBLOCK
            let reason = String(cString: strerror(errno))
            Glibc.close(descriptor)
            throw RegistryStoreError(
                held
                    ? "\(file): another process uses this store (one worker per directory)"
                    : "\(file): cannot lock the store: \(reason)")
        }
        self.descriptor = Mutex(descriptor)
    }

    /// Releases the lock (closing the only descriptor of the open file does); nothing the second time.
    func release() {
        descriptor.withLock { descriptor in
            if let open = descriptor { Glibc.close(open) }
            descriptor = nil
        }
    }

    deinit {
        release()
    }
}
