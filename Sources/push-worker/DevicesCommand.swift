import Adapters
import CLI
import Configuration
import DeviceRegistry
import Essentials
import Foundation
import Kafka
import KafkaTypes
import PushCore
import TopicWindow

/// `push-worker devices …`: the device registry for operators — subscribe, unsubscribe, list, import, stats.
enum DevicesCommand {
    static let config = OptionSpec.value(
        "--config", "FILE", "Read NAME=value settings from FILE; the environment overrides them.")
    static let device: [OptionSpec] = [
        .value("--app", "A", "The app (default: the default app, the empty string)."),
        .value("--client", "C", "The client id."),
        .value("--type", "T", "ios, ios-voip, android, fcm or web."),
        .value("--device", "D", "The device id."),
    ]

    static let subcommands = [
        Subcommand(
            name: "devices subscribe", summary: "Subscribes a device: writes its record to the device registry.",
            synopsis: "--client C --type T --device D --token TOKEN [--app A] [--sandbox] [--topic T] [--locale L]",
            discussion: """
                Writes the subscription to PUSH_DEVICES_TOPIC (default push.devices) under the key
                appID/clientId/type/deviceId; one subscription per type and device id, so subscribing again replaces
                the token. With PUSH_REGISTRY_PARTITIONING=client (subscribe, unsubscribe, import), each record goes to
                the partition of its client key appID/clientId (Kafka's murmur2 partitioner over those bytes). The token is checked as the workers check it. Exit codes: 0 done, 2 usage, 3 configuration,
                1 Kafka failure.
                """,
            options: device + [
                .value(
                    "--token", "TOKEN", "The provider's device token; for web, the PushSubscription as compact JSON."),
                .switch("--sandbox", "A development-build APNs token."),
                .value("--topic", "T", "An APNs bundle id other than the app's default."),
                .value("--locale", "L", "The device's language (BCP 47)."), config,
            ],
            run: { await subscribe($0, environment: ProcessInfo.processInfo.environment) }),
        Subcommand(
            name: "devices unsubscribe", summary: "Unsubscribes a device: writes the tombstone of its key.",
            synopsis: "--client C --type T --device D [--app A]",
            discussion: "Exit codes: 0 done, 2 usage, 3 configuration, 1 Kafka failure.",
            options: device + [config],
            run: { await unsubscribe($0, environment: ProcessInfo.processInfo.environment) }),
        Subcommand(
            name: "devices list", summary: "Lists one client's devices, as the workers' registry holds them.",
            synopsis: "--client C [--app A]",
            discussion: """
                Reads PUSH_DEVICES_TOPIC from its beginning to its end (no consumer group) and prints one JSON line per
                device, with the token's hash (sha256:…), never the token.
                """,
            options: [device[0], device[1], config],
            run: { await list($0, environment: ProcessInfo.processInfo.environment) }),
        Subcommand(
            name: "devices import", summary: "Imports devices from a CSV or JSON-lines file into the registry.",
            synopsis: "--format csv|jsonl FILE",
            discussion: """
                csv: a header naming appID, clientId, type, token, deviceId (and optionally sandbox, topic, locale),
                then one device per line. jsonl: one subscription record per line. Lines end with LF or CRLF. A bad
                line (not UTF-8 included) is reported on stderr with its line number and reason and skipped; the file
                is read and written in batches; progress goes to stderr, the summary to stdout. Exit codes: 0 done
                (bad lines included), 2 usage, 3 configuration, 1 Kafka or file failure or no device imported.
                """,
            options: [.value("--format", "FORMAT", "csv or jsonl."), config],
            arguments: [ArgumentSpec("FILE", "The file to import.")],
            run: { await importDevices($0, environment: ProcessInfo.processInfo.environment) }),
        Subcommand(
            name: "devices stats", summary: "Counts the registry's devices per app and type.",
            synopsis: "[--config FILE]",
            discussion: "Reads PUSH_DEVICES_TOPIC from its beginning to its end and prints app, type and count.",
            options: [config],
            run: { await stats($0, environment: ProcessInfo.processInfo.environment) }),
    ]

    /// The settings; `nil` when they are refused (the line naming the variable is written).
    private static func settings(_ arguments: ParsedArguments, _ environment: [String: String])
        -> DevicesConfiguration?
    {
        do {
            return try DevicesConfiguration.load(environment: environment, configFile: arguments.value("--config"))
        } catch {
            _ = ToolFailure.configuration(error)
            return nil
        }
    }

    private static func key(_ arguments: ParsedArguments) throws(UsageError) -> DeviceKey {
        let typeName = try arguments.required("--type")
        guard let type = SubscriptionType(rawValue: typeName) else {
            throw UsageError("option '--type' takes ios, ios-voip, android, fcm or web")
        }
        return DeviceKey(
            appID: arguments.value("--app") ?? "", clientID: try arguments.required("--client"), type: type,
            deviceID: try arguments.required("--device"))
    }

    static func subscribe(_ arguments: ParsedArguments, environment: [String: String]) async -> Int32 {
        let subscription: Subscription
        do {
            let key = try key(arguments)
            subscription = Subscription(
                appID: key.appID, clientID: key.clientID, type: key.type, token: try arguments.required("--token"),
                deviceID: key.deviceID, sandbox: arguments.isSet("--sandbox"), topic: arguments.value("--topic"),
                locale: arguments.value("--locale").flatMap { LanguageTag(lenient: $0) },
                updatedAtMS: Int64(clampingRoundedDown: Date().timeIntervalSince1970 * 1000))
            _ = try RegistryRecordDecoder.subscription(
                key: Array(key.description.utf8), value: subscription.json())
        } catch let error as UsageError {
            return ToolFailure.usage(error)
        } catch {
            return ToolFailure.usage(UsageError("\(error)"))
        }
        return await write([(subscription.key, subscription.json())], arguments, environment)
    }

    static func unsubscribe(_ arguments: ParsedArguments, environment: [String: String]) async -> Int32 {
        let key: DeviceKey
        do {
            key = try self.key(arguments)
        } catch {
            return ToolFailure.usage(error)
        }
        return await write([(key, [])], arguments, environment)
    }

    private static func write(
        _ records: [(DeviceKey, [UInt8])], _ arguments: ParsedArguments, _ environment: [String: String]
    ) async -> Int32 {
        guard let configuration = settings(arguments, environment) else { return WorkerExitCode.configuration }
        do {
            let producer = try KafkaProducer(configuration: configuration.kafka)
            let placement = placement(configuration, producer)
            for (key, value) in records {
                _ = try await producer.send(try await placement.record(key, value: value))
            }
            _ = await producer.close(timeout: .seconds(10))
        } catch {
            return ToolFailure.runtime("writing \(configuration.registry.devicesTopic)", error)
        }
        return 0
    }

    /// Where `producer` writes the devices topic's records (`PUSH_REGISTRY_PARTITIONING`).
    private static func placement(_ configuration: DevicesConfiguration, _ producer: KafkaProducer)
        -> RegistryPlacement
    {
        RegistryPlacement(
            topic: configuration.registry.devicesTopic, partitioning: configuration.registry.partitioning,
            producer: producer)
    }

    /// The registry as the topic holds it now.
    private static func registry(_ configuration: DevicesConfiguration) async throws -> RegistryTables {
        let tables = RegistryTables(store: MemoryDeviceStore())
        try await TopicWindowReader.read(configuration.registry.devicesTopic, configuration: configuration.kafka) {
            records in
            for record in records { try tables.applyDevice(key: record.key, value: record.value) }
        }
        return tables
    }

    static func list(_ arguments: ParsedArguments, environment: [String: String]) async -> Int32 {
        let client: ClientKey
        do {
            client = ClientKey(appID: arguments.value("--app") ?? "", clientID: try arguments.required("--client"))
        } catch {
            return ToolFailure.usage(error)
        }
        guard let configuration = settings(arguments, environment) else { return WorkerExitCode.configuration }
        do {
            let tables = try await registry(configuration)
            let lines = tables.store.subscriptions(of: client).map { subscription in
                var writer = JSONWriter()
                writer.beginObject()
                writer.field("appID", subscription.appID)
                writer.field("clientId", subscription.clientID)
                writer.field("type", subscription.type.rawValue)
                writer.field("deviceId", subscription.deviceID)
                writer.field("tokenHash", SHA256.tokenHash(subscription.token))
                writer.endObject()
                return writer.text
            }
            if !lines.isEmpty { StandardStreams.writeOut(lines.joined(separator: "\n")) }
        } catch {
            return ToolFailure.runtime("reading \(configuration.registry.devicesTopic)", error)
        }
        return 0
    }

    static func stats(_ arguments: ParsedArguments, environment: [String: String]) async -> Int32 {
        guard let configuration = settings(arguments, environment) else { return WorkerExitCode.configuration }
        do {
            let statistics = try await registry(configuration).store.statistics
            let rows = statistics.devicesByAppAndType.sorted { $0.key < $1.key }.map { entry in
                "\(entry.key.appID.isEmpty ? "(default)" : entry.key.appID)\t\(entry.key.type.rawValue)\t\(entry.value)"
            }
            StandardStreams.writeOut(
                (["app\ttype\tdevices"] + rows + [
                    "total\t\t\(statistics.devices) devices, \(statistics.clients) clients"
                ]).joined(separator: "\n"))
        } catch {
            return ToolFailure.runtime("reading \(configuration.registry.devicesTopic)", error)
        }
        return 0
    }

    static func importDevices(_ arguments: ParsedArguments, environment: [String: String]) async -> Int32 {
        let format: DeviceImport.Format
        let path: String
        do throws(UsageError) {
            guard let chosen = DeviceImport.Format(rawValue: try arguments.required("--format")) else {
                throw UsageError("option '--format' takes csv or jsonl")
            }
            format = chosen
            guard let file = arguments.argument("FILE") else { throw UsageError("missing argument FILE") }
            path = file
        } catch {
            return ToolFailure.usage(error)
        }
        guard let configuration = settings(arguments, environment) else { return WorkerExitCode.configuration }
        guard let file = FileHandle(forReadingAtPath: path) else {
            return ToolFailure.runtime("reading \(path)", "cannot read the file")
        }
        defer { try? file.close() }
        let topic = configuration.registry.devicesTopic
        let producer: KafkaProducer
        do {
            producer = try KafkaProducer(configuration: configuration.kafka)
        } catch {
            return ToolFailure.runtime("writing \(topic)", error)
        }
        let result: Result<ImportCounts, ImportStop>
        do throws(ImportStop) {
            result = .success(
                try await importLines(
                    of: file, format: format, to: producer, placement: placement(configuration, producer)))
        } catch {
            result = .failure(error)
        }
        _ = await producer.close(timeout: .seconds(10))
        switch result {
        case .failure(.reading(let error)): return ToolFailure.runtime("reading \(path)", error)
        case .failure(.header(let line, let error)): return ToolFailure.runtime("reading \(path) line \(line)", error)
        case .failure(.writing(let error)): return ToolFailure.runtime("writing \(topic)", error)
        case .success(let counts):
            StandardStreams.writeOut("imported \(counts.imported) devices, skipped \(counts.skipped) lines")
            guard counts.imported > 0 else {
                return ToolFailure.runtime("importing \(path)", "no line holds a device to import")
            }
            return 0
        }
    }

    private struct ImportCounts {
        var imported = 0
        var skipped = 0
    }

    /// How an import stopped before the end of its file.
    private enum ImportStop: Error {
        case reading(any Error)
        case header(line: Int, RegistryRecordError)
        case writing(any Error)
    }

    /// The devices written at once.
    private static let importBatch = 1000

    /// Reads `file` a chunk at a time and writes its devices in batches as it goes, so memory holds one chunk and
    /// about one batch whatever the file's size; each bad line is reported on stderr with its number and reason.
    private static func importLines(
        of file: FileHandle, format: DeviceImport.Format, to producer: KafkaProducer, placement: RegistryPlacement
    ) async throws(ImportStop) -> ImportCounts {
        var reader = DeviceImport.Reader(format: format)
        var splitter = LineSplitter(maximumBytes: DeviceImport.maximumLineBytes)
        var counts = ImportCounts()
        var batch: [KafkaProducerRecord] = []
        var lastLine = 0
        var ended = false
        while !ended {
            let chunk: Data
            do {
                chunk = try file.read(upToCount: 64 * 1024) ?? Data()
            } catch {
                throw .reading(error)
            }
            ended = chunk.isEmpty
            let lines = ended ? (splitter.finish().map { [$0] } ?? []) : splitter.feed(chunk)
            for line in lines {
                lastLine = line.number
                switch reader.read(line) {
                case .blank, .header:
                    continue
                case .subscription(let subscription):
                    do {
                        batch.append(try await placement.record(subscription.key, value: subscription.json()))
                    } catch {
                        throw .writing(error)
                    }
                case .skipped(let error):
                    counts.skipped += 1
                    StandardStreams.writeError("line \(line.number): \(error.message)")
                case .refused(let error):
                    throw .header(line: line.number, error)
                }
            }
            guard batch.count >= importBatch || (ended && !batch.isEmpty) else { continue }
            for case .failure(let error) in await producer.send(batch) { throw .writing(error) }
            counts.imported += batch.count
            batch.removeAll(keepingCapacity: true)
            StandardStreams.writeError("imported \(counts.imported) devices (line \(lastLine))")
        }
        return counts
    }
}
