import Glibc

/// Line-oriented, unbuffered writes to stdout and stderr, so that parent processes see each line at once.
public enum StandardStreams {
    /// Writes `line` and a newline to stdout.
    public static func writeOut(_ line: String) {
        write(line + "\n", to: STDOUT_FILENO)
    }

    /// Writes `line` and a newline to stderr.
    public static func writeError(_ line: String) {
        write(line + "\n", to: STDERR_FILENO)
    }

    /// Writes `text` to stderr as it is (no newline), e.g. a progress line redrawn in place with `\r`.
    public static func writeErrorText(_ text: String) {
        write(text, to: STDERR_FILENO)
    }

    private static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { buffer in
                Glibc.write(descriptor, buffer.baseAddress, buffer.count)
            }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }
}
