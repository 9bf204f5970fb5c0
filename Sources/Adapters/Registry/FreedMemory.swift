import Glibc

/// Gives the allocator's free pages back to the kernel at once. jemalloc (the worker's allocator, `malloc_conf` in
/// `MallocConfiguration`) returns freed pages only as later allocations tick its decay, so an idle worker keeps what
/// a burst of work (the registry's load: a million records decoded) freed; its `mallctl` is looked up at run time, so
/// under another allocator (the test binaries) this does nothing.
enum FreedMemory {
    private typealias Control =
        @convention(c) (
            UnsafePointer<CChar>?, UnsafeMutableRawPointer?, UnsafeMutablePointer<Int>?, UnsafeMutableRawPointer?, Int
        ) -> Int32

    /// Flushes the calling thread's cache and purges every arena (`MALLCTL_ARENAS_ALL` is 4096).
    static func release() {
        guard let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, "mallctl") else { return }
        let control = unsafeBitCast(symbol, to: Control.self)
        _ = control("thread.tcache.flush", nil, nil, nil, 0)
        _ = control("arena.4096.purge", nil, nil, nil, 0)
    }
}
