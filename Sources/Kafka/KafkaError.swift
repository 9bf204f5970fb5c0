internal import CRdKafka

/// The one error type of the Kafka layer: a librdkafka error code with a readable message.
///
/// `isRetriable` says that the same operation may succeed if tried again (a timeout, a broker that is
/// down); `isFatal` says the client instance is unusable and must be recreated (for example an idempotent
/// producer that lost its sequence). `file` and `line` say where the Kafka layer raised it; two errors that differ
/// only there are equal.
public struct KafkaError: Error, Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The librdkafka code (`rd_kafka_resp_err_t`): negative for client errors, positive for broker errors.
    public let code: Code
    /// What went wrong, in words; never contains record contents or credentials.
    public let message: String
    /// Whether trying the same operation again may succeed.
    public let isRetriable: Bool
    /// Whether the client instance is unusable from now on.
    public let isFatal: Bool
    /// On a failed delivery report: whether the broker may have stored the record anyway (librdkafka's
    /// `RD_KAFKA_MSG_STATUS_POSSIBLY_PERSISTED`: it was sent, but no acknowledgement came in time), so sending it
    /// again may store it twice. `false` when it surely was not stored, and for every other error.
    public var mayHaveBeenStored = false
    /// The source file (`#fileID`) where the error was raised.
    public let file: String
    /// The line in `file` where the error was raised.
    public let line: UInt

    public init(
        code: Code, message: String, isRetriable: Bool? = nil, isFatal: Bool = false, file: String = #fileID,
        line: UInt = #line
    ) {
        self.code = code
        self.message = message
        self.isRetriable = isRetriable ?? code.isRetriableByDefault
        self.isFatal = isFatal
        self.file = file
        self.line = line
    }

    /// The symbolic name of the code, e.g. `REQUEST_TIMED_OUT` or `_MSG_TIMED_OUT`.
    public var name: String { code.name }

    public var description: String { "\(code.name): \(message)" }

    /// The description with where the error was raised.
    public var debugDescription: String { "\(description) (\(file):\(line))" }

    /// Equal when everything but the place it was raised at is.
    public static func == (lhs: KafkaError, rhs: KafkaError) -> Bool {
        (lhs.code, lhs.message, lhs.isRetriable, lhs.isFatal, lhs.mayHaveBeenStored)
            == (rhs.code, rhs.message, rhs.isRetriable, rhs.isFatal, rhs.mayHaveBeenStored)
    }

    init(_ code: rd_kafka_resp_err_t, context: String? = nil, file: String = #fileID, line: UInt = #line) {
        let code = Code(rawValue: code.rawValue)
        let reason = code.reason
        self.init(code: code, message: context.map { "\($0): \(reason)" } ?? reason, file: file, line: line)
    }

    init(taking error: OpaquePointer, file: String = #fileID, line: UInt = #line) {
        defer { rd_kafka_error_destroy(error) }
        self.init(
            code: Code(rawValue: rd_kafka_error_code(error).rawValue),
            message: String(libraryText: rd_kafka_error_string(error))
                ?? Code(rawValue: rd_kafka_error_code(error).rawValue).reason,
            isRetriable: rd_kafka_error_is_retriable(error) != 0,
            isFatal: rd_kafka_error_is_fatal(error) != 0,
            file: file, line: line
        )
    }

    /// A usage error of this layer (bad configuration, an unknown name), never retriable.
    static func invalidArgument(_ message: String, file: String = #fileID, line: UInt = #line) -> KafkaError {
        KafkaError(code: .invalidArgument, message: message, isRetriable: false, file: file, line: line)
    }
}

extension KafkaError {
    /// A librdkafka error code; the static members name the ones callers branch on.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: Int32

        public init(rawValue: Int32) {
            self.rawValue = rawValue
        }

        /// The code whose symbolic name is `name` (`REQUEST_TIMED_OUT`, `_TRANSPORT`), if librdkafka knows it.
        public init?(name: String) {
            guard let code = Self.codesByName[name] else { return nil }
            self = code
        }

        /// The symbolic name, e.g. `NOT_LEADER_FOR_PARTITION`.
        public var name: String { String(libraryText: rd_kafka_err2name(resp)) ?? "ERR_\(rawValue)" }
        /// librdkafka's description, e.g. `Broker: Request timed out`.
        public var reason: String { String(libraryText: rd_kafka_err2str(resp)) ?? "error \(rawValue)" }
        public var description: String { name }

        var resp: rd_kafka_resp_err_t { rd_kafka_resp_err_t(rawValue: rawValue) }

        public static let noError = Code(rawValue: RD_KAFKA_RESP_ERR_NO_ERROR.rawValue)
        public static let timedOut = Code(rawValue: RD_KAFKA_RESP_ERR__TIMED_OUT.rawValue)
        public static let messageTimedOut = Code(rawValue: RD_KAFKA_RESP_ERR__MSG_TIMED_OUT.rawValue)
        public static let queueFull = Code(rawValue: RD_KAFKA_RESP_ERR__QUEUE_FULL.rawValue)
        public static let transport = Code(rawValue: RD_KAFKA_RESP_ERR__TRANSPORT.rawValue)
        public static let allBrokersDown = Code(rawValue: RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN.rawValue)
        public static let state = Code(rawValue: RD_KAFKA_RESP_ERR__STATE.rawValue)
        public static let fatal = Code(rawValue: RD_KAFKA_RESP_ERR__FATAL.rawValue)
        public static let invalidArgument = Code(rawValue: RD_KAFKA_RESP_ERR__INVALID_ARG.rawValue)
        public static let noOffset = Code(rawValue: RD_KAFKA_RESP_ERR__NO_OFFSET.rawValue)
        public static let purgedQueue = Code(rawValue: RD_KAFKA_RESP_ERR__PURGE_QUEUE.rawValue)
        public static let unknownTopicOrPartition = Code(
            rawValue: RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART.rawValue)
        public static let requestTimedOut = Code(rawValue: RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT.rawValue)
        public static let notLeaderForPartition = Code(
            rawValue: RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION.rawValue)
        public static let rebalanceInProgress = Code(rawValue: RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS.rawValue)
        public static let messageSizeTooLarge = Code(rawValue: RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE.rawValue)
        public static let topicAuthorizationFailed = Code(
            rawValue: RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED.rawValue)

        /// Client-side codes that describe a passing condition rather than a broken request.
        private static let transientClientCodes: Set<Code> = [
            .timedOut, .messageTimedOut, .queueFull, .transport, .allBrokersDown,
        ]

        /// Broker codes Kafka documents as retriable (the ones librdkafka retries itself).
        private static let retriableBrokerCodes: Set<Int32> = [
            RD_KAFKA_RESP_ERR_INVALID_MSG, RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART,
            RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE, RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION,
            RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT, RD_KAFKA_RESP_ERR_NETWORK_EXCEPTION,
            RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS, RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE,
            RD_KAFKA_RESP_ERR_NOT_COORDINATOR, RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS,
            RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND, RD_KAFKA_RESP_ERR_KAFKA_STORAGE_ERROR,
            RD_KAFKA_RESP_ERR_FETCH_SESSION_ID_NOT_FOUND, RD_KAFKA_RESP_ERR_INVALID_FETCH_SESSION_EPOCH,
            RD_KAFKA_RESP_ERR_OFFSET_NOT_AVAILABLE, RD_KAFKA_RESP_ERR_PREFERRED_LEADER_NOT_AVAILABLE,
            RD_KAFKA_RESP_ERR_UNSTABLE_OFFSET_COMMIT, RD_KAFKA_RESP_ERR_THROTTLING_QUOTA_EXCEEDED,
            RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS,
        ].reduce(into: []) { $0.insert($1.rawValue) }

        var isRetriableByDefault: Bool {
            Self.transientClientCodes.contains(self) || Self.retriableBrokerCodes.contains(rawValue)
        }

        private static let codesByName: [String: Code] = {
            var descriptions: UnsafePointer<rd_kafka_err_desc>?
            var count = 0
            rd_kafka_get_err_descs(&descriptions, &count)
            guard let descriptions else { return [:] }
            var table: [String: Code] = [:]
            for entry in UnsafeBufferPointer(start: descriptions, count: count) {
                guard let name = String(libraryText: entry.name) else { continue }
                table[name] = Code(rawValue: entry.code.rawValue)
            }
            return table
        }()
    }
}
