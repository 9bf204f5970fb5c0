import DeviceRegistry
import PushCore
import Testing

@Suite struct LineSplitterTests {
    /// The lines of `bytes` fed in chunks of `size`, with the last one.
    static func lines(_ bytes: [UInt8], chunk size: Int, maximumBytes: Int = 64) -> [LineSplitter.Line] {
        var splitter = LineSplitter(maximumBytes: maximumBytes)
        var lines: [LineSplitter.Line] = []
        for start in stride(from: 0, to: bytes.count, by: size) {
            lines += splitter.feed(bytes[start..<min(start + size, bytes.count)])
        }
        return lines + (splitter.finish().map { [$0] } ?? [])
    }

    static func texts(_ lines: [LineSplitter.Line]) -> [String] {
        lines.map {
            switch $0.text {
            case .success(let text): "\($0.number) \(text)"
            case .failure(let error): "\($0.number) ! \(error.message)"
            }
        }
    }

    @Test(arguments: [1, 2, 3, 7, 1000])
    func crlfAndLFEndLinesAlikeWhereverTheChunksEnd(chunk: Int) {
        let crlf = Self.texts(Self.lines(Array("a,b\r\nc\r\n\r\nd".utf8), chunk: chunk))
        let lf = Self.texts(Self.lines(Array("a,b\nc\n\nd".utf8), chunk: chunk))
        #expect(crlf == ["1 a,b", "2 c", "3 ", "4 d"])
        #expect(lf == crlf)
        // A carriage return inside a line stays; a file ending with its line end has no empty last line.
        #expect(Self.texts(Self.lines(Array("a\rb\r\n".utf8), chunk: chunk)) == ["1 a\rb"])
    }

    @Test(arguments: [1, 5, 1000])
    func bytesThatAreNotUTF8AreRefusedNamingTheFirstNeverReplaced(chunk: Int) {
        let bytes = Array("ok\r\ncaf".utf8) + [0xFF, 0xFE] + Array("\r\ncafé\n".utf8) + [0xC3]
        #expect(
            Self.texts(Self.lines(bytes, chunk: chunk)) == [
                "1 ok", "2 ! not UTF-8 (byte 4)", "3 café", "4 ! not UTF-8 (byte 1)",
            ])
    }

    @Test(arguments: [1, 10, 1000])
    func aLineLongerThanTheLimitIsRefusedAndTheNextOneRead(chunk: Int) {
        let long = String(repeating: "x", count: 65)
        let exact = String(repeating: "y", count: 64)
        #expect(
            Self.texts(Self.lines(Array("\(long)\r\n\(exact)\r\nz".utf8), chunk: chunk)) == [
                "1 ! longer than 64 bytes", "2 \(exact)", "3 z",
            ])
    }

    @Test func aCSVReaderTakesItsHeaderThenDevicesAndSkipsWhatIsNotUTF8() {
        var reader = DeviceImport.Reader(format: .csv)
        let bytes =
            Array("\r\nappID,clientId,type,token,deviceId\r\nA,c,fcm,t-1,P1\r\nA,caf".utf8) + [0xFF]
            + Array(",fcm,t-2,P2\r\nA,c,pager,t,P3\r\n".utf8)
        let outcomes = Self.lines(bytes, chunk: 4, maximumBytes: DeviceImport.maximumLineBytes).map { reader.read($0) }
        #expect(outcomes.count == 5)
        #expect(outcomes[0] == .blank)
        #expect(outcomes[1] == .header)
        guard case .subscription(let subscription) = outcomes[2] else {
            Issue.record("\(outcomes[2])")
            return
        }
        #expect(subscription.key == DeviceKey(appID: "A", clientID: "c", type: .fcm, deviceID: "P1"))
        #expect(outcomes[3] == .skipped(RegistryRecordError(.badValue, "not UTF-8 (byte 6)")))
        guard case .skipped(let error) = outcomes[4] else {
            Issue.record("\(outcomes[4])")
            return
        }
        #expect(error.message.hasPrefix("type: must be one of"))
    }

    @Test func aCSVHeaderThatIsNotUTF8OrNamesUnknownColumnsRefusesTheFile() {
        for header in [Array("appID,clientId,type,token,device\u{FF}".utf8), [0xFF], Array("deviceId,colour".utf8)] {
            var reader = DeviceImport.Reader(format: .csv)
            let outcome = Self.lines(header, chunk: 100).map { reader.read($0) }.first
            guard case .refused = outcome else {
                Issue.record("\(String(describing: outcome))")
                continue
            }
        }
    }

    @Test func jsonLinesWithWindowsLineEndsAreEachADevice() {
        var reader = DeviceImport.Reader(format: .jsonl)
        let rows = (1...3).map {
            #"{"appID": "A", "clientId": "c\#($0)", "type": "fcm", "token": "t-\#($0)", "deviceId": "P"}"# + "\r\n"
        }
        let outcomes = Self.lines(Array(rows.joined().utf8), chunk: 16, maximumBytes: 1024).map { reader.read($0) }
        #expect(
            outcomes.map {
                guard case .subscription(let subscription) = $0 else { return "" }
                return subscription.clientID
            } == ["c1", "c2", "c3"])
    }
}
