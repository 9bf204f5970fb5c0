import Glibc
import Synchronization

/// Where log records go. Implementations must be safe to call from any thread.
public protocol LogSink: Sendable {
    /// Writes one record.
    func write(_ record: LogRecord)
}

/// Writes each record as one JSON line to a file descriptor, whole lines only, even from many threads at once.
public final class JSONLinesLogSink: LogSink {
    private let descriptor: Int32
    /// Serializes writes so that lines longer than the pipe's atomic write size never interleave.
    private let writing = Mutex(())

    /// A sink writing to `descriptor`, which the caller keeps open for the sink's lifetime.
    public init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    public func write(_ record: LogRecord) {
        let line = record.jsonLine() + "\n"
        writing.withLock { _ in
            var bytes = Array(line.utf8)[...]
            while !bytes.isEmpty {
                let written = bytes.withUnsafeBytes { buffer in
                    systemWrite(descriptor, buffer.baseAddress, buffer.count)
                }
                if written < 0 && errno == EINTR { continue }
                // A closed or full stderr must not stop the service: the line is dropped.
                guard written > 0 else { return }
                bytes = bytes.dropFirst(written)
            }
        }
    }
}

extension LogSink where Self == JSONLinesLogSink {
    /// JSON lines on the process's stderr.
    public static var standardError: JSONLinesLogSink { standardErrorSink }
}

private let standardErrorSink = JSONLinesLogSink(descriptor: STDERR_FILENO)

private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    Glibc.write(descriptor, buffer, count)
}
