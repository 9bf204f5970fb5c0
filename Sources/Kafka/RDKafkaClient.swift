internal import CRdKafka

/// The one owner of an `rd_kafka_t` handle: created from a property map, destroyed in `deinit`.
///
/// `@unchecked Sendable` is safe: the handle pointer is immutable after `init`, and librdkafka documents
/// `rd_kafka_t` as thread-safe; the only non-thread-safe call, `rd_kafka_destroy`, runs in `deinit`, when
/// no other reference exists.
final class RDKafkaClient: @unchecked Sendable {
    let handle: OpaquePointer
    private let isConsumer: Bool
    /// The object behind the callbacks' opaque pointer, kept alive until the handle is destroyed.
    private let callbackOwner: (any AnyObject & Sendable)?

    /// Callback hooks installed on the configuration before the handle is created.
    struct Callbacks {
        /// Passed unretained to librdkafka as the opaque; the client retains it until the handle is gone.
        var owner: (any AnyObject & Sendable)?
        var error: (@convention(c) (OpaquePointer?, Int32, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void)?
        var statistics:
            (@convention(c) (OpaquePointer?, UnsafeMutablePointer<CChar>?, Int, UnsafeMutableRawPointer?) -> Int32)?
        var rebalance:
            (
                @convention(c) (
                    OpaquePointer?, rd_kafka_resp_err_t, UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?,
                    UnsafeMutableRawPointer?
                ) -> Void
            )?
        var delivery:
            (@convention(c) (OpaquePointer?, UnsafePointer<rd_kafka_message_t>?, UnsafeMutableRawPointer?) -> Void)?
        /// Every commit's answer (automatic or explicit), served where the consumer polls.
        var offsetCommit:
            (
                @convention(c) (
                    OpaquePointer?, rd_kafka_resp_err_t, UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?,
                    UnsafeMutableRawPointer?
                ) -> Void
            )? = nil
    }

    enum Kind {
        case consumer, producer
    }

    /// A client of `kind` with `defaults` applied first, then `properties`: a given property that librdkafka
    /// knows under another name as well (an alias: `request.required.acks` for `acks`, `metadata.broker.list` for
    /// `bootstrap.servers`) overrides a default set under the other name, whichever name sorts first.
    init(
        _ kind: Kind, defaults: [String: String] = [:], properties: [String: String], callbacks: Callbacks
    ) throws(KafkaError) {
        guard let configuration = rd_kafka_conf_new() else {
            throw KafkaError.invalidArgument("librdkafka could not allocate a configuration")
        }
        var errorText = [CChar](repeating: 0, count: 512)
        let defaulted = defaults.filter { properties[$0.key] == nil }.sorted { $0.key < $1.key }
        for (name, value) in defaulted + properties.sorted(by: { $0.key < $1.key }) {
            let result = rd_kafka_conf_set(configuration, name, value, &errorText, errorText.count)
            guard result == RD_KAFKA_CONF_OK else {
                rd_kafka_conf_destroy(configuration)
                throw KafkaError.invalidArgument(
                    "configuration property '\(name)': \(errorText.nulTerminatedString)"
                )
            }
        }
        if let owner = callbacks.owner {
            rd_kafka_conf_set_opaque(configuration, Unmanaged.passUnretained(owner).toOpaque())
        }
        if let error = callbacks.error { rd_kafka_conf_set_error_cb(configuration, error) }
        if let statistics = callbacks.statistics { rd_kafka_conf_set_stats_cb(configuration, statistics) }
        if let rebalance = callbacks.rebalance { rd_kafka_conf_set_rebalance_cb(configuration, rebalance) }
        if let delivery = callbacks.delivery { rd_kafka_conf_set_dr_msg_cb(configuration, delivery) }
        if let offsetCommit = callbacks.offsetCommit { rd_kafka_conf_set_offset_commit_cb(configuration, offsetCommit) }
        // Log lines go to the owner's log handler, or nowhere: never straight to stderr.
        rd_kafka_conf_set_log_cb(configuration, Self.forwardLog)

        let type = kind == .consumer ? RD_KAFKA_CONSUMER : RD_KAFKA_PRODUCER
        // On success rd_kafka_new takes the configuration; on failure it stays ours.
        guard let handle = rd_kafka_new(type, configuration, &errorText, errorText.count) else {
            rd_kafka_conf_destroy(configuration)
            throw KafkaError.invalidArgument(
                "librdkafka refused the configuration: \(errorText.nulTerminatedString)"
            )
        }
        self.handle = handle
        self.isConsumer = kind == .consumer
        self.callbackOwner = callbacks.owner
    }

    deinit {
        // A consumer is closed explicitly (and boundedly) by KafkaConsumer.close; the implicit close inside
        // rd_kafka_destroy can hang for a cooperative consumer in librdkafka 2.0.2.
        rd_kafka_destroy_flags(handle, isConsumer ? pw_rd_kafka_destroy_no_consumer_close : 0)
    }

    /// Hands a librdkafka log line to the log handler of the handle's callback owner, if it has one.
    private static let forwardLog:
        @convention(c) (OpaquePointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Void = {
            handle, severity, facility, text in
            guard let handle, let opaque = rd_kafka_opaque(handle) else { return }
            let owner = Unmanaged<AnyObject>.fromOpaque(opaque).takeUnretainedValue()
            guard let receiver = owner as? any KafkaLogReceiving, let handler = receiver.logHandler else { return }
            handler(
                KafkaLogMessage(
                    severity: severity,
                    facility: String(libraryText: facility) ?? "",
                    message: String(libraryText: text) ?? ""))
        }

    /// The value librdkafka holds for the property `name` on this handle (aliases and defaults resolved), or nil
    /// when it knows no such property.
    func property(_ name: String) -> String? {
        let configuration = rd_kafka_conf(handle)
        var size = 0
        guard rd_kafka_conf_get(configuration, name, nil, &size) == RD_KAFKA_CONF_OK, size > 0 else { return nil }
        var value = [CChar](repeating: 0, count: size)
        guard rd_kafka_conf_get(configuration, name, &value, &size) == RD_KAFKA_CONF_OK else { return nil }
        return value.nulTerminatedString
    }

    /// Raises a fabricated fatal error (librdkafka's test hook), for tests of fatal-error handling.
    func raiseFatalErrorForTesting(_ code: KafkaError.Code) {
        _ = rd_kafka_test_fatal_error(handle, code.resp, "raised by a test")
    }

    /// The fatal error raised on this handle, if any, with its underlying code and reason.
    func fatalError() -> KafkaError? {
        Self.fatalError(of: handle)
    }

    /// The fatal error raised on `handle`, if any, with its underlying code and reason.
    static func fatalError(of handle: OpaquePointer) -> KafkaError? {
        var text = [CChar](repeating: 0, count: 512)
        let code = rd_kafka_fatal_error(handle, &text, text.count)
        guard code != RD_KAFKA_RESP_ERR_NO_ERROR else { return nil }
        return KafkaError(
            code: KafkaError.Code(rawValue: code.rawValue), message: text.nulTerminatedString, isRetriable: false,
            isFatal: true)
    }

    /// The error an error callback reports, resolving `_FATAL` to the underlying fatal error.
    static func callbackError(handle: OpaquePointer, code: Int32, reason: UnsafePointer<CChar>?) -> KafkaError {
        if code == RD_KAFKA_RESP_ERR__FATAL.rawValue, let fatal = fatalError(of: handle) { return fatal }
        let code = KafkaError.Code(rawValue: code)
        return KafkaError(code: code, message: String(libraryText: reason) ?? code.reason)
    }
}

extension [CChar] {
    /// The text of a NUL-terminated C string buffer filled by librdkafka.
    var nulTerminatedString: String {
        String(decoding: prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
