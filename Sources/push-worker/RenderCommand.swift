import CLI
import Foundation
import PushCore

/// `push-worker render`: prints every provider request (and every skip, expiry, dead letter) an event produces.
enum RenderCommand {
    static let defaultAPNsTopic = "com.example.chat"
    static let defaultFCMProject = "example-project"

    static let subcommand = Subcommand(
        name: "render",
        summary: "Prints the exact APNs / FCM requests an event would produce, per device.",
        synopsis: "--event FILE [--rules FILE] [--apns-topic TOPIC] [--fcm-project ID] [--now TIME]",
        discussion: """
            The rules table is --rules, else PUSH_RULES_FILE, else the built-in table. The APNs topic is \
            --apns-topic, else APNS_TOPIC, else \(defaultAPNsTopic); the FCM project is --fcm-project, else the \
            project_id of FCM_SERVICE_ACCOUNT_FILE, else \(defaultFCMProject). TIME (RFC 3339 or epoch \
            milliseconds) decides expiry; by default the event's own createdAt, as if it were sent at once. The \
            event's createdAt must lie within 100 years of TIME, else of the clock.
            """,
        options: [
            .value("--event", "FILE", "The chat-message event (JSON)."),
            .value("--rules", "FILE", "A rules table (JSON) instead of the built-in one."),
            .value("--apns-topic", "TOPIC", "The app's bundle id for apns-topic."),
            .value("--fcm-project", "ID", "The Firebase project id for the FCM path."),
            .value("--now", "TIME", "The time to plan at."),
        ],
        run: { arguments in
            do throws(Failure) {
                StandardStreams.writeOut(try render(arguments, environment: ProcessInfo.processInfo.environment))
                return 0
            } catch {
                StandardStreams.writeError("push-worker render: error: \(error.message)")
                return 1
            }
        }
    )

    /// A failure that ends the command with one line on stderr and exit code 1.
    struct Failure: Error {
        let message: String
    }

    static func render(_ arguments: ParsedArguments, environment: [String: String]) throws(Failure) -> String {
        let eventPath: String
        do {
            eventPath = try arguments.required("--event")
        } catch {
            throw Failure(message: error.message)
        }
        let bytes = try read(eventPath)
        let givenTime = try time(arguments.value("--now"))
        let event: ChatMessageEvent
        do {
            event = try EventDecoder().decode(bytes, now: givenTime ?? Date())
        } catch {
            throw Failure(message: "\(eventPath): \(error.reason): \(error)")
        }
        let rules = try loadRules(arguments.value("--rules") ?? environment["PUSH_RULES_FILE"])
        var fcmProjectID = defaultFCMProject
        if let project = arguments.value("--fcm-project") {
            fcmProjectID = project
        } else if let accountFile = environment["FCM_SERVICE_ACCOUNT_FILE"] {
            fcmProjectID = try projectID(inServiceAccount: accountFile)
        }
        let context = ProviderContext(
            apnsTopic: arguments.value("--apns-topic") ?? environment["APNS_TOPIC"] ?? defaultAPNsTopic,
            fcmProjectID: fcmProjectID
        )
        let now = givenTime ?? event.createdAt ?? Date()
        let decisions = PushPlanner(rules: rules, context: context).plan(event, now: now)
        return DecisionReport.json(event: event, decisions: decisions, now: now)
    }

    static func read(_ path: String) throws(Failure) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Failure(message: "\(path): cannot read the file")
        }
        return Array(data)
    }

    static func loadRules(_ path: String?) throws(Failure) -> RulesTable {
        guard let path else { return .standard }
        let bytes = try read(path)
        do {
            return try RulesTable.load(json: bytes)
        } catch {
            throw Failure(message: "\(path): \(error)")
        }
    }

    static func projectID(inServiceAccount path: String) throws(Failure) -> String {
        let bytes = try read(path)
        guard let account = try? JSONParser.parse(bytes), let project = account["project_id"]?.stringValue,
            !project.isEmpty
        else { throw Failure(message: "\(path): not a service-account JSON with a project_id") }
        return project
    }

    /// The `--now` time, if given.
    static func time(_ text: String?) throws(Failure) -> Date? {
        guard let text else { return nil }
        if let milliseconds = Int64(text) { return Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
        guard let date = RFC3339.parse(text) else {
            throw Failure(message: "--now: '\(text)' is neither RFC 3339 nor epoch milliseconds")
        }
        return date
    }
}
