import Essentials
import Foundation
import Ingress
import PushCore
import Testing

@Suite struct IngressAdmissionTests {
    static let keys = try! IngressKeys(parsing: "SampleApp:k-old,SampleApp:k-new,OtherApp:k-other")
    let admission = IngressAdmission(keys: keys, allowlist: nil, maximumBodyBytes: 4_096)

    static let v1 =
        #"{"_id":"m1","messageType":"text","room":"demo-room","sender":{"_id":"sss","nickname":"SSS"},"#
        + #""toClient":"aaa","badge":3,"alert":"hi","appID":"SampleApp"}"#
    static let v2 =
        #"{"_id":"m1","messageType":"text","room":"demo-room","sender":{"_id":"sss","nickname":"SSS"},"#
        + #""pushToClients":["aaa","bbb"],"appID":"SampleApp"}"#
    static let custom = #"{"clients":["user001"],"payload":{"title":"T","body":"B","badge":1,"alert":{"loc-key":"k"}}}"#

    func decide(
        _ route: String, _ body: String, method: String = "POST", headers: [String: String] = ["im-api-key": "k-new"],
        query: [String: String] = [:], bodyTooLarge: Bool = false, client: [UInt8] = [10, 0, 0, 1],
        admission: IngressAdmission? = nil
    ) -> IngressDecision {
        (admission ?? self.admission).decide(
            method: method, path: route, headers: headers, query: query, body: Array(body.utf8),
            bodyTooLarge: bodyTooLarge, clientAddress: client, now: Date(timeIntervalSince1970: 1_764_590_400),
            makeID: { "generated-id" })
    }

    func refusal(_ decision: IngressDecision) -> (status: Int, body: JSONValue)? {
        guard case .answer(let answer) = decision, let body = try? JSONParser.parse(answer.body) else { return nil }
        return (answer.status, body)
    }

    @Test func aCallbackBodyIsWrittenUnchangedKeyedByItsRoom() {
        for (route, body) in [("/imkit/push", Self.v1), ("/imkit/push/v2", Self.v2)] {
            #expect(decide(route, body) == .write(key: Array("demo-room".utf8), value: Array(body.utf8)))
        }
    }

    @Test func aCustomPushWithoutIDGetsOneAndTheKeysAppAndIsKeyedByIt() throws {
        guard case .write(let key, let value) = decide("/push/push2clients", Self.custom) else {
            Issue.record("not written")
            return
        }
        #expect(key == Array("generated-id".utf8))
        let record = try JSONParser.parse(value)
        #expect(record["id"] == .string("generated-id"))
        #expect(record["appID"] == .string("SampleApp"))
        #expect(record["clients"] == .array([.string("user001")]))
    }

    /// Keys of two apps and of the default app.
    static let appKeys = try! IngressKeys(parsing: "AppA:key-a,AppB:key-b,(default):key-default,café:key-nfc")
    static let routes = [("/imkit/push", v1), ("/imkit/push/v2", v2), ("/push/push2clients", custom)]
    /// The three places a key may be presented: `IM-API-KEY`, `Authorization: Bearer`, `?key=`.
    static let keyForms: [@Sendable (String) -> (headers: [String: String], query: [String: String])] = [
        { (["im-api-key": $0], [:]) }, { (["authorization": "Bearer \($0)"], [:]) }, { ([:], ["key": $0]) },
    ]

    /// `body` with its `appID` member replaced by the JSON text `appID`, or removed when that is `nil`.
    static func body(_ body: String, appID: String?) -> String {
        guard case .object(var members) = try! JSONParser.parse(Array(body.utf8)) else { return body }
        members.removeAll { $0.key == "appID" }
        if let appID { members.append(JSONMember("appID", try! JSONParser.parse(Array(appID.utf8)))) }
        return String(decoding: JSONWriter.encode(.object(members)), as: UTF8.self)
    }

    /// The decision for every route and every key form with `key`, and the body's `appID` member `appID`.
    func decisions(key: String, appID: String?) -> [IngressDecision] {
        Self.routes.flatMap { route, body in
            Self.keyForms.map { form in
                let (headers, query) = form(key)
                return decide(
                    route, Self.body(body, appID: appID), headers: headers, query: query,
                    admission: IngressAdmission(keys: Self.appKeys, allowlist: nil, maximumBodyBytes: 4_096))
            }
        }
    }

    /// The written record's `appID` member (`.null` when it has none), or `nil` when nothing is written.
    static func writtenApp(_ decision: IngressDecision) -> JSONValue? {
        guard case .write(_, let value) = decision, let record = try? JSONParser.parse(value) else { return nil }
        return record["appID"] ?? .null
    }

    @Test(arguments: [nil, "null", #""""#])
    func aBodyNamingNoAppGetsTheKeysAppOnEveryRouteAndKeyForm(appID: String?) {
        let decisions = decisions(key: "key-b", appID: appID)
        #expect(decisions.count == 9)
        #expect(decisions.map(Self.writtenApp) == Array(repeating: .string("AppB"), count: 9))
    }

    @Test(arguments: [#""AppA""#, #""AppB ""#, #""appb""#])
    func aBodyNamingAnotherAppIs403OnEveryRouteAndKeyForm(appID: String) {
        let decisions = decisions(key: "key-b", appID: appID)
        #expect(decisions.count == 9)
        for decision in decisions {
            #expect(refusal(decision)?.status == 403)
            #expect(refusal(decision)?.body["error"]?["code"] == .string("APP_MISMATCH"))
            #expect(refusal(decision)?.body["error"]?["field"] == .string("appID"))
        }
    }

    @Test func onlyTheDefaultAppsKeyWritesForTheDefaultApp() {
        for appID in [nil, "null", #""""#] {
            let apps = decisions(key: "key-default", appID: appID).map(Self.writtenApp)
            #expect(apps.count == 9)
            #expect(apps.allSatisfy { $0 == .null || $0 == .string("") })
        }
        #expect(decisions(key: "key-default", appID: #""AppA""#).allSatisfy { refusal($0)?.status == 403 })
        #expect(
            decisions(key: "key-a", appID: #""AppA""#).map(Self.writtenApp)
                == Array(repeating: .string("AppA"), count: 9))
    }

    @Test func appsAreComparedAsBytesNotAsCanonicallyEquivalentText() {
        // The key's app is "café" with a precomposed é (NFC); the same name with e + U+0301 (NFD) is another app.
        let nfc = decisions(key: "key-nfc", appID: "\"caf\u{E9}\"")
        #expect(nfc.map(Self.writtenApp) == Array(repeating: .string("caf\u{E9}"), count: 9))
        let nfd = decisions(key: "key-nfc", appID: "\"cafe\u{301}\"")
        #expect(nfd.allSatisfy { refusal($0)?.status == 403 })
    }

    /// A custom push to `u` with `payload`, the JSON text of its members.
    static func customPush(_ payload: String) -> String { #"{"clients":["u"],"payload":{"# + payload + "}}" }

    /// `count` times `text` as a JSON string.
    static func repeated(_ text: String, _ count: Int) -> String {
        "\"" + String(repeating: text, count: count) + "\""
    }

    @Test(arguments: [
        // 5,000 loc-args: even cut to nothing they are over 4 KB.
        (
            #""alert":{"loc-key":"k","loc-args":["# + Array(repeating: #""x""#, count: 5_000).joined(separator: ",")
                + "]}",
            "payload.alert.loc-args"
        ),
        // A sound JSON escapes (6 bytes a character) beside a long collapse key, icon and type: over FCM's 4,000 bytes.
        (
            #""title":"T","sound":"# + repeated("\\u0001", 256) + #","collapseKey":"# + repeated("😀", 256)
                + #","icon":"#
                + repeated("😀", 256) + #","type":"# + repeated("\\u0001", 64), "payload.sound"
        ),
        // Expired a second before the request.
        (#""title":"T","expiry":1764590399"#, "payload.expiry"),
    ])
    func aCustomPushNoDeviceWouldGetIs400NamingTheField(payload: String, field: String) throws {
        let roomy = IngressAdmission(keys: Self.keys, allowlist: nil, maximumBodyBytes: 262_144)
        let (status, answer) = try #require(
            refusal(decide("/push/push2clients", Self.customPush(payload), admission: roomy)))
        #expect(status == 400)
        #expect(answer["error"]?["code"] == .string("INVALID_PARAMETER"))
        #expect(answer["error"]?["field"] == .string(field))
    }

    @Test(arguments: [
        #""title":"T","sound":"# + repeated("s", 256) + #","collapseKey":"# + repeated("c", 256),
        #""title":"T","sound":"# + repeated("😀", 256) + #","collapseKey":"# + repeated("😀", 256),
        #""alert":{"loc-key":"k","loc-args":["# + Array(repeating: #""x""#, count: 100).joined(separator: ",") + "]}",
        #""title":"T","expiry":1764590400"#,
    ])
    func aCustomPushThatFitsOnceCutIsWritten(payload: String) {
        let roomy = IngressAdmission(keys: Self.keys, allowlist: nil, maximumBodyBytes: 262_144)
        #expect(refusal(decide("/push/push2clients", Self.customPush(payload), admission: roomy)) == nil)
    }

    @Test func aCustomPushKeepsItsOwnID() {
        let body = #"{"id":"p-7","clients":["u"],"payload":{}}"#
        guard case .write(let key, _) = decide("/push/push2clients", body) else {
            Issue.record("not written")
            return
        }
        #expect(key == Array("p-7".utf8))
    }

    @Test(arguments: [
        ["im-api-key": "k-old"], ["im-api-key": "k-new"], ["authorization": "Bearer k-new"],
        ["authorization": "bearer k-old"],
    ])
    func everyValidKeyInEveryPlaceIsAccepted(headers: [String: String]) {
        #expect(refusal(decide("/imkit/push/v2", Self.v2, headers: headers)) == nil)
    }

    @Test func theKeyMayComeAsAQueryParameter() {
        #expect(refusal(decide("/imkit/push/v2", Self.v2, headers: [:], query: ["key": "k-old"])) == nil)
    }

    @Test(arguments: [[:], ["im-api-key": "k-ne"], ["im-api-key": "k-new2"], ["authorization": "Basic k-new"]])
    func aMissingOrWrongKeyIs401InIMKITsShape(headers: [String: String]) throws {
        let (status, body) = try #require(refusal(decide("/imkit/push/v2", Self.v2, headers: headers)))
        #expect(status == 401)
        #expect(body["RC"] == .number("401"))
        #expect(body["RM"] == .string("Unauthorized"))
        #expect(body["error"]?["code"] == .string("INVALID_API_KEY"))
    }

    @Test func anotherAppsKeyCannotPushForThisApp() throws {
        let (status, body) = try #require(
            refusal(decide("/imkit/push/v2", Self.v2, headers: ["im-api-key": "k-other"])))
        #expect(status == 403)
        #expect(body["error"]?["field"] == .string("appID"))
    }

    @Test func aCustomPushWithoutClientsOrPayloadIsMissingParameter() throws {
        for body in [#"{"payload":{}}"#, #"{"clients":["u"]}"#] {
            let (status, answer) = try #require(refusal(decide("/push/push2clients", body)))
            #expect(status == 400)
            #expect(answer["error"]?["code"] == .string("MISSING_PARAMETER"))
            #expect(answer["error"]?["message"] == .string("clients and payload are required"))
        }
    }

    @Test(arguments: [
        ("/imkit/push", #"{"messageType":"text","room":"r"}"#, "MISSING_PARAMETER", "toClient"),
        ("/imkit/push", #"{"messageType":"text","room":"r","toClient":"a","badge":"3"}"#, "INVALID_PARAMETER", "badge"),
        ("/imkit/push/v2", #"{"messageType":"text","pushToClients":["a"]}"#, "MISSING_PARAMETER", "room"),
        (
            "/imkit/push/v2", #"{"messageType":"text","room":"r","pushToClients":"a"}"#, "INVALID_PARAMETER",
            "pushToClients"
        ),
        ("/imkit/push/v2", #"{"messageType":7,"room":"r","pushToClients":["a"]}"#, "INVALID_PARAMETER", "messageType"),
        ("/push/push2clients", #"{"clients":[],"payload":{}}"#, "INVALID_PARAMETER", "clients"),
        ("/push/push2clients", #"{"clients":["u"],"payload":{"badge":1.5}}"#, "INVALID_PARAMETER", "payload.badge"),
        (
            "/push/push2clients", #"{"clients":["u"],"payload":{"alert":{"loc-args":"x"}}}"#, "INVALID_PARAMETER",
            "payload.alert.loc-args"
        ),
        ("/push/push2clients", #"{"clients":["u"],"payload":{"title":1}}"#, "INVALID_PARAMETER", "payload.title"),
        ("/push/push2clients", #"{"clients":["u",""],"payload":{}}"#, "INVALID_PARAMETER", "clients[1]"),
        ("/push/push2clients", #"{"clients":["u"],"payload":{"expiry":-1}}"#, "INVALID_PARAMETER", "payload.expiry"),
        (
            "/push/push2clients", #"{"clients":["u"],"payload":{"topic":"com.example app"}}"#, "INVALID_PARAMETER",
            "payload.topic"
        ),
        ("/push/push2clients", #"{"clients":["u"],"payload":{"badge":-1}}"#, "INVALID_PARAMETER", "payload.badge"),
    ])
    func aBadFieldIs400NamingIt(route: String, body: String, code: String, field: String) throws {
        let (status, answer) = try #require(refusal(decide(route, body)))
        #expect(status == 400)
        #expect(answer["error"]?["code"] == .string(code))
        #expect(answer["error"]?["field"] == .string(field))
    }

    @Test func aBodyThatIsNotJSONIs400() throws {
        let (status, answer) = try #require(refusal(decide("/imkit/push/v2", "messageType=text")))
        #expect(status == 400)
        #expect(answer["error"]?["code"] == .string("INVALID_JSON"))
    }

    @Test func aBodyOverTheLimitIs413() throws {
        #expect(try #require(refusal(decide("/imkit/push/v2", "", bodyTooLarge: true))).status == 413)
        let long = String(repeating: " ", count: 4_097) + Self.v2
        #expect(try #require(refusal(decide("/imkit/push/v2", long))).status == 413)
    }

    @Test func theKeyIsCheckedBeforeTheBody() throws {
        #expect(try #require(refusal(decide("/imkit/push/v2", "{", headers: [:]))).status == 401)
    }

    @Test func anUnknownPathIs404AndAnotherMethodIs405() throws {
        #expect(try #require(refusal(decide("/imkit", Self.v2))).status == 404)
        #expect(try #require(refusal(decide("/imkit/push", Self.v1, method: "GET"))).status == 405)
    }

    @Test func aClientOutsideTheAllowlistIs403() throws {
        let allowlist = try ClientAllowlist(parsing: "10.0.0.0/8")
        let guarded = IngressAdmission(keys: Self.keys, allowlist: allowlist, maximumBodyBytes: 4_096)
        #expect(refusal(decide("/imkit/push/v2", Self.v2, client: [10, 9, 8, 7], admission: guarded)) == nil)
        #expect(
            try #require(refusal(decide("/imkit/push/v2", Self.v2, client: [192, 168, 0, 1], admission: guarded)))
                .status == 403)
    }

    @Test func theAcceptedAnswerIsIMKITsOK() {
        #expect(IngressAnswer.accepted.status == 200)
        #expect(String(decoding: IngressAnswer.accepted.body, as: UTF8.self) == #"{"RC":0,"RM":"OK","result":{}}"#)
    }

    @Test func aRecordSurelyNotWrittenIs503WithRetryAfterAndOneThatMayBeIs504Without() throws {
        let notWritten = IngressAnswer.notAcknowledged(mayHaveBeenStored: false, retryAfterSeconds: 1)
        #expect(notWritten.status == 503)
        #expect(notWritten.headers["Retry-After"] == "1")
        #expect(try JSONParser.parse(notWritten.body)["error"]?["code"] == .string("UNAVAILABLE"))
        let mayBeWritten = IngressAnswer.notAcknowledged(mayHaveBeenStored: true, retryAfterSeconds: 1)
        #expect(mayBeWritten.status == 504)
        #expect(mayBeWritten.headers["Retry-After"] == nil)
        #expect(try JSONParser.parse(mayBeWritten.body)["RM"] == .string("Gateway Timeout"))
        #expect(try JSONParser.parse(mayBeWritten.body)["error"]?["code"] == .string("UNCONFIRMED"))
    }
}
