import Glibc

/// The process's own resource use in the names Prometheus client libraries use, sampled at each scrape:
/// `process_resident_memory_bytes`, `process_cpu_seconds_total` (a counter sampled from `getrusage`) and
/// `process_start_time_seconds`.
public enum ProcessMetrics {
    /// Registers the collector; call once at start, right after creating the registry.
    public static func register(in registry: MetricsRegistry) {
        let start = LogTimestamp.now()
        registry.gauge("process_start_time_seconds", help: "Start time of the process since the Unix epoch in seconds.")
            .set(Double(start.secondsSinceEpoch) + Double(start.nanoseconds) / 1e9)
        let resident = registry.gauge("process_resident_memory_bytes", help: "Resident memory size in bytes.")
        let cpu = registry.sampledCounter(
            "process_cpu_seconds_total", help: "Total user and system CPU time spent in seconds.")
        registry.addCollector {
            if let bytes = residentMemoryBytes() { resident.set(bytes) }
            cpu.advance(to: cpuSeconds())
        }
    }

    /// Resident pages from `/proc/self/statm` (its second field) times the page size; nil where there is no procfs.
    static func residentMemoryBytes() -> Int? {
        let descriptor = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = read(descriptor, &buffer, buffer.count)
        guard count > 0 else { return nil }
        let fields = buffer[..<count].split(separator: UInt8(ascii: " "))
        guard fields.count > 1, let pages = Int(String(decoding: fields[1], as: UTF8.self)) else { return nil }
        return pages * sysconf(Int32(_SC_PAGESIZE))
    }

    /// User plus system CPU time of the whole process.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return 0 }
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
