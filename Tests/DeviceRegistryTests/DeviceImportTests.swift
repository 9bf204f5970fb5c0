import DeviceRegistry
import Essentials
import PushCore
import TestSupport
import Testing

@Suite struct DeviceImportTests {
    static let token = String(repeating: "ab", count: 32)

    @Test func aCSVHeaderNamesTheColumnsInAnyOrder() throws {
        let columns = try DeviceImport.columns(csvHeader: "token, deviceId,type,clientId,appID,locale").get()
        let subscription = try DeviceImport.subscription(
            csvLine: "\(Self.token),D1,ios,aaa,SampleApp,ko-KR\r", columns: columns
        ).get()
        #expect(
            subscription
                == Subscription(
                    appID: "SampleApp", clientID: "aaa", type: .ios, token: Self.token, deviceID: "D1",
                    locale: LanguageTag("ko-KR")))
    }

    @Test(arguments: ["appID,clientId,type,token", "appID,clientId,type,token,deviceId,colour"])
    func aHeaderWithoutARequiredColumnOrWithAnUnknownOneIsRefused(header: Substring) {
        #expect(throws: RegistryRecordError.self) { _ = try DeviceImport.columns(csvHeader: header).get() }
    }

    @Test(arguments: [
        ("A,c,ios,zz,D1", "token: must be"), ("A,c,pager,t,D1", "type: must be one of"),
        ("A,c,ios", "3 fields, the header has 5"), (",,fcm,t,D1", "clientId: must not be empty"),
    ])
    func badCSVLinesSayWhy(line: Substring, message: String) throws {
        let columns = try DeviceImport.columns(csvHeader: "appID,clientId,type,token,deviceId").get()
        guard case .failure(let error) = DeviceImport.subscription(csvLine: line, columns: columns) else {
            Issue.record("accepted")
            return
        }
        #expect(error.message.contains(message), "\(error)")
    }

    @Test func aBrowsersSubscriptionComesThroughAJSONLine() throws {
        let token = String(decoding: JSONWriter.encode(.string(Fixture.webToken)), as: UTF8.self)
        let line = #"{"appID": "A", "clientId": "c", "type": "web", "token": \#(token), "deviceId": "B1"}"#
        let subscription = try DeviceImport.subscription(jsonLine: Substring(line)).get()
        #expect(subscription.device == Device(platform: .web, token: Fixture.webToken))
        let notASubscription =
            #"{"appID": "A", "clientId": "c", "type": "web", "token": "https://e/x", "deviceId": "B1"}"#
        guard case .failure(let error) = DeviceImport.subscription(jsonLine: Substring(notASubscription)) else {
            Issue.record("a URL alone was imported as a web token")
            return
        }
        #expect(error.reason == .badToken)
    }

    @Test func aJSONLineIsASubscriptionRecord() throws {
        let line = #"{"appID": "A", "clientId": "c", "type": "fcm", "token": "t-1", "deviceId": "P1"}"#
        let subscription = try DeviceImport.subscription(jsonLine: Substring(line)).get()
        #expect(subscription.key == DeviceKey(appID: "A", clientID: "c", type: .fcm, deviceID: "P1"))
        #expect(throws: RegistryRecordError.self) { _ = try DeviceImport.subscription(jsonLine: "{").get() }
    }

    @Test func aSubscriptionsJSONDecodesBackToItself() throws {
        let subscription = Subscription(
            appID: "A", clientID: "c", type: .ios, token: Self.token, deviceID: "D", sandbox: true, topic: "com.x",
            locale: LanguageTag("ja"), updatedAtMS: 5)
        let change = try RegistryRecordDecoder.subscription(
            key: Array(subscription.key.description.utf8), value: subscription.json())
        #expect(change == .put(subscription.key, subscription))
    }
}
