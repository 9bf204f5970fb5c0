import Testing

@testable import PushPipeline

@Suite struct RecordScanTests {
    @Test func objectsAreCountedOutsideStringsOnly() {
        #expect(RecordScan(Array(#"{"a": "x\"{\\", "b": {}}"#.utf8)).objectCount == 2)
        #expect(RecordScan(Array(#"{"text": "{{{", "list": [{}, {"c": "}{"}]}"#.utf8)).objectCount == 3)
        #expect(RecordScan(Array(#"{"open": "{"#.utf8)).objectCount == 1)
    }

    /// A quote after an even run of backslashes ends the string (the run is escaped backslashes); after an odd run
    /// it is part of the text.
    @Test func aStringEndsAtTheFirstQuoteNoBackslashEscapes() {
        let ended = RecordScan(Array(#"{"a": "x\\", "messageType": {}}"#.utf8))
        #expect(ended.objectCount == 2 && ended.namesMessageType)
        let escaped = RecordScan(Array(#"{"a": "x\\\" {"}"#.utf8))
        #expect(escaped.objectCount == 1)
        let runAtTheStart = RecordScan(Array(#"{"a": "\\", "clients": {}}"#.utf8))
        #expect(runAtTheStart.objectCount == 2)
        #expect(runAtTheStart.namesClients)
    }

    @Test func aNameIsFoundAsAWholeStringAnywhereInTheRecord() {
        let member = RecordScan(Array(#"{"id": "m-1", "messageType": "text"}"#.utf8))
        #expect(member.namesMessageType && !member.namesClients)
        let value = RecordScan(Array(#"{"id": "m-1", "kind": "clients"}"#.utf8))
        #expect(value.namesClients && !value.namesMessageType)
        let both = RecordScan(Array(#"{"clients": ["a"], "messageType": 1}"#.utf8))
        #expect(both.namesClients && both.namesMessageType)
    }

    @Test func aNameWithinAStringEscapedOrUnclosedIsNotFound() {
        for json in [
            #"{"messageTypes": 1, "the clients": 2}"#, #"{"text": "\"messageType\" and \"clients\""}"#,
            #"{"message\u0054ype": 1, "client\u0073": 2}"#, #"{"a": "clients"#, #"{"a": "messageType\"#,
        ] {
            let scan = RecordScan(Array(json.utf8))
            #expect(!scan.namesMessageType && !scan.namesClients, "\(json)")
        }
    }
}
