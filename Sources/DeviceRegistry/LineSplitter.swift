public import PushCore

/// Splits a stream of bytes, fed in chunks of any size, into lines ended by LF or CRLF (Windows and spreadsheet
/// exports), numbered from 1, each decoded as UTF-8 or refused with the reason: bytes that are not UTF-8 are never
/// replaced. A line longer than `maximumBytes` is refused and only its first bytes kept, so memory is bounded by one
/// line, whatever the input. Pure.
public struct LineSplitter: Sendable {
    /// One line, without its line end.
    public struct Line: Sendable, Equatable {
        /// From 1.
        public var number: Int
        /// The text, or why the line is not text.
        public var text: Result<String, RegistryRecordError>
    }

    /// The longest line taken, in bytes.
    public let maximumBytes: Int
    private var pending: [UInt8] = []
    private var isTooLong = false
    private var number = 0

    public init(maximumBytes: Int) {
        self.maximumBytes = maximumBytes
    }

    /// The lines `chunk` ends; the bytes after its last line end wait for the next chunk or `finish()`.
    public mutating func feed(_ chunk: some Collection<UInt8>) -> [Line] {
        var lines: [Line] = []
        var rest = chunk[...]
        while let end = rest.firstIndex(of: UInt8(ascii: "\n")) {
            take(rest[..<end])
            lines.append(endLine())
            rest = rest[rest.index(after: end)...]
        }
        take(rest)
        return lines
    }

    /// The last line, when the input does not end with a line end.
    public mutating func finish() -> Line? {
        pending.isEmpty && !isTooLong ? nil : endLine()
    }

    private mutating func take(_ bytes: some Collection<UInt8>) {
        // One byte more than the limit: a carriage return before the line feed is not the line's.
        let room = max(0, maximumBytes + 1 - pending.count)
        pending.append(contentsOf: bytes.prefix(room))
        if bytes.count > room { isTooLong = true }
    }

    private mutating func endLine() -> Line {
        number += 1
        if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
        defer {
            pending.removeAll(keepingCapacity: true)
            isTooLong = false
        }
        guard !isTooLong, pending.count <= maximumBytes else {
            return Line(
                number: number, text: .failure(RegistryRecordError(.badValue, "longer than \(maximumBytes) bytes")))
        }
        return Line(number: number, text: Self.text(pending))
    }

    /// `bytes` as a string; the error names the first byte (from 1) that is not UTF-8.
    static func text(_ bytes: [UInt8]) -> Result<String, RegistryRecordError> {
        if let text = String(validating: bytes, as: UTF8.self) { return .success(text) }
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while case .valid(let scalar) = parser.parseScalar(from: &iterator) { offset += scalar.count }
        return .failure(RegistryRecordError(.badValue, "not UTF-8 (byte \(offset + 1))"))
    }
}
