import Foundation
import Synchronization

/// The lines a child process writes to one pipe, collected by blocking reads on a thread of its own.
///
/// Not `FileHandle.readabilityHandler`: tearing its dispatch source down races the descriptor close on
/// Linux and can crash the test process (swift-corelibs-libdispatch issue 949).
///
/// ```swift
/// let stdout = Pipe()
/// process.standardOutput = stdout
/// try process.run()
/// let lines = ChildOutputLines(reading: stdout.fileHandleForReading)
/// let ready = try await lines.line(0, within: .seconds(30))
/// ```
public final class ChildOutputLines: Sendable {
    /// A line that did not come: the output ended first, or the time ran out.
    public struct Missing: Error, CustomStringConvertible {
        public let description: String
    }

    private let state = Mutex(State())

    private struct State {
        var complete: [String] = []
        var partial: [UInt8] = []
        var ended = false
    }

    /// Reads `handle` (the parent's end of a child's pipe) until end of file; the reading thread holds
    /// this object until then.
    public init(reading handle: FileHandle) {
        Thread { [self] in
            while case let data = handle.availableData, !data.isEmpty {
                append(data)
            }
            state.withLock { $0.ended = true }
        }.start()
    }

    /// How many complete lines have arrived so far.
    public var count: Int { state.withLock { $0.complete.count } }

    /// Line `index` (from 0, without its newline), waiting up to `limit` for it to arrive.
    public func line(_ index: Int, within limit: Duration) async throws -> String {
        let deadline = ContinuousClock.now + limit
        while true {
            let (line, ended) = state.withLock { state in
                (state.complete.indices.contains(index) ? state.complete[index] : nil, state.ended)
            }
            if let line { return line }
            guard !ended else { throw Missing(description: "the output ended before line \(index + 1)") }
            guard ContinuousClock.now < deadline else {
                throw Missing(description: "no line \(index + 1) within \(limit)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    private func append(_ data: Data) {
        state.withLock { state in
            state.partial += data
            while let newline = state.partial.firstIndex(of: UInt8(ascii: "\n")) {
                state.complete.append(String(decoding: state.partial[..<newline], as: UTF8.self))
                state.partial.removeSubrange(...newline)
            }
        }
    }
}
