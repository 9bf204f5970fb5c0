import CLI
import Configuration
import DeviceRegistry
import Essentials
import Foundation
import PushCore
import PushPipeline

/// `push-worker render`: prints every provider request (and every skip, expiry, dead letter) an event produces.
enum RenderCommand {
    static let defaultAPNsTopic = "com.example.chat"
    static let defaultFCMProject = "example-project"

    static let subcommand = Subcommand(
        name: "render",
        summary: "Prints the exact APNs / FCM / Web Push requests an event would produce, per device.",
        synopsis: "--event FILE [--devices FILE] [--rules FILE] [--apns-topic TOPIC] [--fcm-project ID] [--now TIME]",
        discussion: """
            The rules table is --rules, else PUSH_RULES_FILE, else the built-in table. The APNs topic is \
            --apns-topic, else APNS_TOPIC, else \(defaultAPNsTopic); the FCM project is --fcm-project, else the \
            project_id of FCM_SERVICE_ACCOUNT_FILE, else \(defaultFCMProject). TIME (RFC 3339 or epoch \
            milliseconds) decides expiry; by default the event's own createdAt, as if it were sent at once. The \
            event's createdAt must lie within 100 years of TIME, else of the clock. Each device shows the locale \
            its fallback texts were chosen in: its recipient's locale, else PUSH_DEFAULT_LOCALE, else the \
            table's defaultLocale. An IMKIT message (a JSON object with messageType) needs --devices: its \
            clients' subscription records, one JSON object a line as on PUSH_DEVICES_TOPIC, optionally with \
            client-settings records (those without type); the report ends with the clients and devices not sent \
            to, and why. A web device's request shows the plaintext its service worker reads and how it is \
            encrypted and signed (as with VAPID keys configured); keys are never printed.
            """,
        options: [
            .value("--event", "FILE", "The chat-message event or IMKIT message (JSON)."),
            .value("--devices", "FILE", "The registry records (JSONL) an IMKIT message's clients are looked up in."),
            .value("--rules", "FILE", "A rules table (JSON) instead of the built-in one."),
            .value("--apns-topic", "TOPIC", "The app's bundle id for apns-topic."),
            .value("--fcm-project", "ID", "The Firebase project id for the FCM path."),
            .value("--now", "TIME", "The time to plan at."),
        ],
        run: { arguments in
            do throws(CommandFailure) {
                StandardStreams.writeOut(try render(arguments, environment: ProcessInfo.processInfo.environment))
                return 0
            } catch {
                StandardStreams.writeError("push-worker render: error: \(error.message)")
                return 1
            }
        }
    )

    static func render(_ arguments: ParsedArguments, environment: [String: String]) throws(CommandFailure) -> String {
        let eventPath: String
        do {
            eventPath = try arguments.required("--event")
        } catch {
            throw CommandFailure(message: error.message)
        }
        var bytes = try CommandInput.read(eventPath, kind: .event)
        let givenTime = try time(arguments.value("--now"))
        var unsent: [UnsentDevice] = []
        if let root = try? JSONParser.parse(bytes), IMKITMessageDecoder.isIMKITMessage(root) {
            let resolution = try resolve(root, path: eventPath, devices: arguments.value("--devices"), now: givenTime)
            (bytes, unsent) = (JSONWriter.encode(resolution.event), resolution.unsent)
        }
        let event: ChatMessageEvent
        do {
            event = try EventDecoder().decode(bytes, now: givenTime ?? Date())
        } catch {
            throw CommandFailure(message: "\(eventPath): \(error.reason): \(error)")
        }
        let settings = try CommandInput.configuration(environment)
        let rules = try CommandInput.rules(arguments.value("--rules") ?? settings.rulesFile)
        var fcmProjectID = defaultFCMProject
        if let project = arguments.value("--fcm-project") {
            fcmProjectID = project
        } else if let accountFile = settings.serviceAccountFile {
            fcmProjectID = try projectID(inServiceAccount: accountFile)
        }
        let context = ProviderContext(
            apnsTopic: arguments.value("--apns-topic") ?? settings.apnsTopic ?? defaultAPNsTopic,
            fcmProjectID: fcmProjectID, sendsWebPush: true
        )
        let now = givenTime ?? event.createdAt ?? Date()
        let decisions = PushPlanner(rules: rules, context: context, defaultLocale: settings.defaultLocale).plan(
            event, now: now)
        return DecisionReport.json(event: event, decisions: decisions, now: now, unsent: unsent)
    }

    /// The IMKIT message `root` (of the file at `path`) resolved through the registry records of `devices`, as the
    /// worker resolves it.
    static func resolve(_ root: JSONValue, path: String, devices: String?, now: Date?) throws(CommandFailure)
        -> IMKITResolution
    {
        guard let devices else {
            throw CommandFailure(
                message: "\(path): an IMKIT message (it has messageType) needs --devices FILE, the registry records "
                    + "its clients are looked up in")
        }
        let message: IMKITMessage
        do {
            message = try IMKITMessageDecoder().decode(root, now: now ?? Date())
        } catch {
            throw CommandFailure(message: "\(path): \(error.reason): \(error)")
        }
        let records = try CommandInput.read(devices, kind: .registry)
        let store = MemoryDeviceStore()
        do {
            try RegistryFile.load(records, into: store)
        } catch {
            throw CommandFailure(message: "\(devices): \(error)")
        }
        return IMKITResolver().resolve(message, in: store)
    }

    static func projectID(inServiceAccount path: String) throws(CommandFailure) -> String {
        let bytes = try CommandInput.read(path, kind: .credentials)
        guard let account = try? JSONParser.parse(bytes), let project = account["project_id"]?.stringValue,
            !project.isEmpty
        else { throw CommandFailure(message: "\(path): not a service-account JSON with a project_id") }
        return project
    }

    /// The `--now` time, if given.
    static func time(_ text: String?) throws(CommandFailure) -> Date? {
        guard let text else { return nil }
        if let milliseconds = Int64(text) { return Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
        guard let date = RFC3339.parse(text) else {
            throw CommandFailure(message: "--now: '\(text)' is neither RFC 3339 nor epoch milliseconds")
        }
        return date
    }
}
