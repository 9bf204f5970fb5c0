import Foundation
import PushCore
import Testing

@Suite struct PushPlannerTests {
    @Test func textGoesToAPNsAndFCMButNotToThePushKitToken() throws {
        let decisions = try Fixture.decisions(Fixture.event(type: "text"))
        #expect(decisions.count == 3)
        let apns = try #require(decisions[0].outcome.request)
        #expect(apns.path == "/3/device/\(Fixture.apnsToken)")
        #expect(apns.header("apns-push-type") == "alert")
        #expect(apns.header("apns-topic") == "com.example.chat")
        #expect(
            decisions[0].outcome.bodyText?.contains(#""loc-key":"im_loc_text","loc-args":["Alice","Hello"]"#) == true)
        guard case .skipped(.platform) = decisions[1].outcome else {
            Issue.record("expected the VoIP token to be skipped")
            return
        }
        #expect(decisions[2].outcome.request?.path == "/v1/projects/example-project/messages:send")
    }
}
