import Essentials
import HTTPTypes
import PipelineMetrics
import Providers
public import PushCore
public import PushPipeline

/// The sender port over the apps table (`AppSenders`): a send goes with the APNs, FCM and Web Push clients of its
/// `appID`'s app, the default app's for the empty `appID`.
public struct ProviderSender: PushSender {
    private let apps: AppSenders

    init(apps: AppSenders) {
        self.apps = apps
    }

    /// The providers with a client, in `PushProvider` order: every provider when app folders may bring their own.
    public var configuredProviders: [PushProvider] { apps.configuredProviders }

    public func send(_ send: ProviderSend, to provider: PushProvider) async -> DeliveryOutcome {
        let clients: AppClients
        switch apps.clients(ofApp: send.appID) {
        case .success(let app): clients = app
        case .failure(let refusal): return refused(refusal, app: send.appID, provider: provider)
        }
        let outcome = await self.send(send, to: provider, with: clients)
        apps.count(app: send.appID, provider: provider, status: outcome.metricStatus)
        return outcome
    }

    /// Sends the group in one client `sendAll` per app and provider (APNs and FCM: one transport `sendAll` each),
    /// those of different apps or providers at the same time; Web Push sends go one by one, concurrently (each
    /// push service has its own origin). Each send is counted as `send` counts it and answered as it arrives.
    public func sendAll(_ sends: [PushSend<ProviderSend>], answer: @escaping @Sendable (Int, DeliveryOutcome) -> Void)
        async
    {
        var groups: [(destination: Destination, indices: [Int])] = []
        var positions: [Destination: Int] = [:]
        for (index, send) in sends.enumerated() {
            let destination = Destination(appID: send.request.appID, provider: send.provider)
            if let position = positions[destination] {
                groups[position].indices.append(index)
            } else {
                positions[destination] = groups.count
                groups.append((destination, [index]))
            }
        }
        let destinations = groups
        await concurrently(destinations.count) { [self] slot in
            let (destination, indices) = destinations[slot]
            await send(indices, of: sends, to: destination, answer: answer)
        }
    }

    /// A Web Push send's push-service origin: its breaker and in-flight limit are that origin's.
    public func origin(of send: ProviderSend, to provider: PushProvider) -> String? {
        provider == .webpush ? send.request.origin : nil
    }

    /// An app and provider: the sends of a group that one client sends together.
    private struct Destination: Hashable, Sendable {
        var appID: String
        var provider: PushProvider
    }

    /// Sends `sends[indices]`, all of `destination`, with one client `sendAll` where the provider has one.
    private func send(
        _ indices: [Int], of sends: [PushSend<ProviderSend>], to destination: Destination,
        answer: @escaping @Sendable (Int, DeliveryOutcome) -> Void
    ) async {
        let (appID, provider) = (destination.appID, destination.provider)
        let clients: AppClients
        switch apps.clients(ofApp: appID) {
        case .success(let app): clients = app
        case .failure(let refusal):
            for index in indices { answer(index, refused(refusal, app: appID, provider: provider)) }
            return
        }
        let counted: @Sendable (Int, DeliveryOutcome) -> Void = { [apps] slot, outcome in
            apps.count(app: appID, provider: provider, status: outcome.metricStatus)
            answer(indices[slot], outcome)
        }
        if provider == .apns, let apns = clients.apns {
            let notifications = indices.map { index in
                let send = sends[index].request
                return APNsNotification(
                    deviceToken: send.deviceToken, sandbox: send.request.sandbox,
                    headers: send.request.headers.map { HTTPHeader($0.name, $0.value) }, body: send.request.body)
            }
            await apns.sendAll(notifications, answer: counted)
        } else if provider == .fcm, let fcm = clients.fcm {
            await fcm.sendAll(indices.map { sends[$0].request.request.body }, answer: counted)
        } else {
            await concurrently(indices.count) { [self] slot in
                counted(slot, await send(sends[indices[slot]].request, to: provider, with: clients))
            }
        }
    }

    /// A send of an app that cannot send: counted under the refusal's code, rejected.
    private func refused(_ refusal: AppRefusal, app appID: String, provider: PushProvider) -> DeliveryOutcome {
        apps.count(app: appID, provider: provider, status: refusal.rawValue)
        return .rejected(status: nil, reason: refusal.rawValue)
    }

    private func send(_ send: ProviderSend, to provider: PushProvider, with clients: AppClients) async
        -> DeliveryOutcome
    {
        let request = send.request
        switch provider {
        case .apns:
            guard let apns = clients.apns else { return .rejected(status: nil, reason: "APNs is not configured") }
            return await apns.send(
                deviceToken: send.deviceToken, sandbox: request.sandbox,
                headers: request.headers.map { HTTPHeader($0.name, $0.value) }, body: request.body)
        case .fcm:
            guard let fcm = clients.fcm else { return .rejected(status: nil, reason: "FCM is not configured") }
            return await fcm.send(body: request.body)
        case .webpush:
            guard let webPush = clients.webPush else {
                return .rejected(status: nil, reason: "Web Push is not configured")
            }
            return await webPush.send(subscription: send.deviceToken, request: request)
        }
    }
}
