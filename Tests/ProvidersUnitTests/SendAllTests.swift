import Essentials
import Foundation
import HTTPTypes
import PushCore
import TestSupport
import Testing

@testable import Providers

/// `APNsClient.sendAll`: one transport `sendAll` for the group, each answer classified as `send` classifies it.
@Suite struct APNsSendAllTests {
    /// A device token per kind of answer the scripted APNs gives (by its first two hex digits).
    static let tokens = ["aa", "bb", "cc", "dd", "ee"].map { String(repeating: $0, count: 32) }

    /// 200, 410 Unregistered with a timestamp, 429 with Retry-After, 500, and a transport timeout.
    static let mixed: ScriptedTransport.Answer = { request throws(HTTPError) in
        switch request.url.split(separator: "/").last?.prefix(2) {
        case "aa": return HTTPResponse(status: 200, headers: [HTTPHeader("apns-id", "id-aa")])
        case "bb": return .json(410, #"{"reason":"Unregistered","timestamp":1799999000000}"#)
        case "cc": return .json(429, #"{"reason":"TooManyRequests"}"#, headers: [HTTPHeader("retry-after", "30")])
        case "dd": return .json(500, #"{"reason":"InternalServerError"}"#)
        default: throw HTTPError(.timeout, "deadline passed")
        }
    }

    static func notification(_ token: String) -> APNsNotification {
        APNsNotification(
            deviceToken: token, sandbox: false, headers: [HTTPHeader("apns-push-type", "alert")],
            body: Array("{}".utf8))
    }

    @Test func aMixOfAnswersIsClassifiedAsSendClassifiesEachAndTheGroupGoesInOneTransportCall() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport(Self.mixed)
        let apns = try APNsClientTests().client(transport, clock: clock)
        let notifications = (Self.tokens + Self.tokens.reversed() + ["zz"]).map(Self.notification)
        let grouped = await answersInOrder(of: notifications.count) { answer in
            await apns.sendAll(notifications, answer: answer)
        }
        var oneByOne: [DeliveryOutcome] = []
        for notification in notifications {
            oneByOne.append(
                await apns.send(
                    deviceToken: notification.deviceToken, sandbox: false, headers: notification.headers,
                    body: notification.body))
        }
        #expect(grouped == oneByOne)
        #expect(
            grouped.map(\.className) == [
                "delivered", "invalidToken", "retry", "retry", "retry", "retry", "retry", "retry", "invalidToken",
                "delivered", "invalidToken",
            ])
        #expect(grouped[2] == .retry(status: 429, reason: "TooManyRequests", after: .seconds(30)))
        #expect(transport.groups.count == 1)
        #expect(transport.groups.first?.count == 10, "the malformed token never reaches the transport")
        #expect(
            transport.groups.first?.map(\.url)
                == (Self.tokens + Self.tokens.reversed()).map {
                    "https://prod.test/3/device/\($0)"
                })
        #expect(apns.providerTokensIssued == 1)
    }

    @Test func anExpiredProviderTokenIsRenewedOnceAndEachOfItsSendsGoesAgainOnce() async throws {
        let expired = Shared<String?>(nil)
        let transport = ScriptedTransport { request in
            let authorization = request.header("authorization")
            let first = expired.update { first in
                if first == nil { first = authorization }
                return first
            }
            if authorization == first { return .json(403, #"{"reason":"ExpiredProviderToken"}"#) }
            return HTTPResponse(status: 200, headers: [HTTPHeader("apns-id", "renewed")])
        }
        let apns = try APNsClientTests().client(transport, clock: ManualClock())
        let notifications = Self.tokens.map(Self.notification)
        let grouped = await answersInOrder(of: notifications.count) { answer in
            await apns.sendAll(notifications, answer: answer)
        }
        #expect(grouped == Array(repeating: .delivered(providerMessageId: "renewed"), count: 5))
        #expect(apns.providerTokensIssued == 2)
        #expect(transport.groups.count == 1)
        #expect(transport.requests.count == 10)
        let resent = transport.requests.suffix(5)
        #expect(resent.allSatisfy { $0.freshConnection && $0.header("authorization") != expired.value })
    }

    @Test func aProviderTokenThatStaysExpiredEndsAsACredentialsFailureAfterOneResend() async throws {
        let transport = ScriptedTransport { _ in .json(403, #"{"reason":"ExpiredProviderToken"}"#) }
        let apns = try APNsClientTests().client(transport, clock: ManualClock())
        let grouped = await answersInOrder(of: 3) { answer in
            await apns.sendAll(Self.tokens.prefix(3).map(Self.notification), answer: answer)
        }
        #expect(grouped == Array(repeating: .credentials(status: 403, reason: "ExpiredProviderToken"), count: 3))
        #expect(transport.requests.count == 6)
        #expect(apns.providerTokensIssued == 2)
    }
}

/// `FCMClient.sendAll`: under a cached access token one transport `sendAll`; without one, `send` for each.
@Suite struct FCMSendAllTests {
    static let delivered = DeliveryOutcome.delivered(providerMessageId: "projects/demo-project/messages/1")

    @Test func withoutACachedTokenEachGoesThroughSendSharingOneFetchThenTheGroupGoesInOneCall() async throws {
        let tokenRequests = Shared(0)
        let transport = FCMClientTests.fakeGoogle(tokenRequests: tokenRequests) { _ in
            .json(200, #"{"name":"projects/demo-project/messages/1"}"#)
        }
        let fcm = try FCMClientTests().client(transport)
        let bodies = (0..<20).map { Array(#"{"message":{"token":"t\#($0)"}}"#.utf8) }
        let first = await answersInOrder(of: 20) { answer in await fcm.sendAll(bodies, answer: answer) }
        #expect(first == Array(repeating: Self.delivered, count: 20))
        #expect(tokenRequests.value == 1)
        #expect(transport.groups.isEmpty)
        let second = await answersInOrder(of: 20) { answer in await fcm.sendAll(bodies, answer: answer) }
        #expect(second == Array(repeating: Self.delivered, count: 20))
        #expect(transport.groups.map(\.count) == [20])
        #expect(transport.groups.first?.map(\.body) == bodies)
        #expect(transport.groups.first?.allSatisfy { $0.header("authorization") == "Bearer access-1" } == true)
        #expect(tokenRequests.value == 1)
    }

    @Test func aRefusedTokenIsFetchedAgainOnceForTheGroupAndEachRefusedSendGoesAgainOnce() async throws {
        let tokenRequests = Shared(0)
        let refusing = Shared<String?>(nil)
        let transport = FCMClientTests.fakeGoogle(tokenRequests: tokenRequests) { request in
            if request.header("authorization") == refusing.value {
                return .json(401, #"{"error":{"code":401,"status":"UNAUTHENTICATED"}}"#)
            }
            return request.body == Array("bad".utf8)
                ? .json(400, #"{"error":{"code":400,"status":"INVALID_ARGUMENT"}}"#)
                : .json(200, #"{"name":"projects/demo-project/messages/2"}"#)
        }
        let fcm = try FCMClientTests().client(transport)
        #expect(await fcm.send(body: []).className == "delivered")
        refusing.update { $0 = "Bearer access-1" }
        let bodies = [Array("a".utf8), Array("bad".utf8), Array("b".utf8)]
        let grouped = await answersInOrder(of: 3) { answer in await fcm.sendAll(bodies, answer: answer) }
        #expect(grouped.map(\.className) == ["delivered", "rejected", "delivered"])
        #expect(tokenRequests.value == 2)
        #expect(transport.groups.map(\.count) == [3])
        let sends = transport.requests.filter { $0.url != FCMClientTests.tokenURI }
        // The warm-up and the group under the refused token, then each send of the group once more under the new one.
        #expect(
            sends.map { $0.header("authorization") }
                == Array(repeating: "Bearer access-1", count: 4) + Array(repeating: "Bearer access-2", count: 3))
    }

    @Test func aTokenRefusedAgainAfterTheRefreshIsACredentialsFailure() async throws {
        let tokenRequests = Shared(0)
        let refusing = Shared(false)
        let transport = FCMClientTests.fakeGoogle(tokenRequests: tokenRequests) { _ in
            refusing.value
                ? .json(401, #"{"error":{"code":401,"status":"UNAUTHENTICATED"}}"#)
                : .json(200, #"{"name":"projects/demo-project/messages/2"}"#)
        }
        let fcm = try FCMClientTests().client(transport)
        _ = await fcm.send(body: [])
        refusing.update { $0 = true }
        let grouped = await answersInOrder(of: 4) { answer in
            await fcm.sendAll(Array(repeating: [], count: 4), answer: answer)
        }
        #expect(grouped == Array(repeating: .credentials(status: 401, reason: "UNAUTHENTICATED"), count: 4))
        #expect(tokenRequests.value == 2)
        #expect(transport.requests.filter { $0.url != FCMClientTests.tokenURI }.count == 1 + 4 + 4)
    }
}
