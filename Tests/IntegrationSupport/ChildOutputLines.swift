public import Foundation
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
    /// Entered while the reading thread runs.
    private let reading = DispatchGroup()

    private struct State {
        var complete: [String] = []
        var partial: [UInt8] = []
        var ended = false
    }

    /// Reads `handle` (the parent's end of a child's pipe) until end of file; the reading thread holds
    /// this object until then.
    public init(reading handle: FileHandle) {
        reading.enter()
        Thread { [self] in
            while case let data = handle.availableData, !data.isEmpty {
                append(data)
            }
            state.withLock { $0.ended = true }
            reading.leave()
        }.start()
    }

    /// Blocks until the pipe reaches end of file.
    public func waitUntilEnded() { reading.wait() }

    /// How many complete lines have arrived so far.
    public var count: Int { state.withLock { $0.complete.count } }

    /// The complete lines so far, without their newlines.
    public var lines: [String] { state.withLock { $0.complete } }

    /// Everything read so far, an unfinished last line included.
    public var text: String {
        state.withLock { state in
            state.complete.map { $0 + "\n" }.joined() + String(decoding: state.partial, as: UTF8.self)
        }
    }

    /// Whether the pipe has reached end of file (the child closed it, usually by exiting).
    public var ended: Bool { state.withLock { $0.ended } }

    /// Whether some line read so far, an unfinished last one included, contains `fragment`.
    public func contains(_ fragment: String) -> Bool {
        state.withLock { state in
            state.complete.contains { $0.contains(fragment) }
                || String(decoding: state.partial, as: UTF8.self).contains(fragment)
        }
    }

    /// Line `index` (from 0, without its newline), waiting up to `limit` for it to arrive.
    public func line(_ index: Int, within limit: Duration) async throws -> String {
        try await firstLine(from: index, described: "line \(index + 1)", within: limit) { _ in true }
    }

    /// The first complete line containing `fragment`, waiting up to `limit` for it to arrive.
    public func line(containing fragment: String, within limit: Duration) async throws -> String {
        try await firstLine(from: 0, described: "a line containing '\(fragment)'", within: limit) {
            $0.contains(fragment)
        }
    }

    /// Whether a complete line containing `fragment` arrives within `limit`.
    public func waitForLine(containing fragment: String, within limit: Duration = .seconds(30)) async -> Bool {
        (try? await line(containing: fragment, within: limit)) != nil
    }

    /// The first complete line from `index` on that `matches`, polling until the output ends or `limit` passes.
    private func firstLine(
        from index: Int, described what: String, within limit: Duration, where matches: (String) -> Bool
    ) async throws -> String {
        let deadline = ContinuousClock.now + limit
        while true {
            let (line, ended) = state.withLock { state in
                (state.complete.dropFirst(index).first(where: matches), state.ended)
            }
            if let line { return line }
            guard !ended else { throw Missing(description: "the output ended before \(what)") }
            guard ContinuousClock.now < deadline else {
                throw Missing(description: "no \(what) within \(limit)")
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
