import Foundation
import Ingress
import Kafka
import KafkaTypes
import Observability
import StatusServer

/// The ingress's requests on the HTTP server: `IngressAdmission` decides, and a record to write is produced to the
/// input topic, the answer going out from its delivery report — 200 once Kafka acknowledged it; when it did not within
/// the producer's `message.timeout.ms`, 503 with `Retry-After` if the record surely is not written, 504 if it was sent
/// and may be.
struct IngressRequestHandler: HTTPRequestHandler {
    let admission: AdmissionInForce
    let producer: KafkaProducer
    let topic: String
    let metrics: IngressMetrics
    let logger: Logger
    /// `Retry-After` of a 503, in seconds.
    let retryAfterSeconds: Int

    var maximumBodyBytes: Int { admission.current.maximumBodyBytes }

    func handle(_ request: HTTPServerRequest, respond: @escaping @Sendable (HTTPServerResponse) -> Void) {
        let decision = admission.current.decide(
            method: request.method, path: request.path, headers: request.headers, query: request.query,
            body: request.body, bodyTooLarge: request.bodyTooLarge, clientAddress: request.clientAddress,
            now: Date(), makeID: { UUID().uuidString.lowercased() })
        let path = request.path
        let metrics = metrics
        let reply: @Sendable (IngressAnswer) -> Void = { answer in
            metrics.answered(path: path, status: answer.status)
            respond(
                HTTPServerResponse(
                    status: answer.status, contentType: "application/json; charset=utf-8", headers: answer.headers,
                    body: answer.body))
        }
        switch decision {
        case .answer(let answer):
            reply(answer)
        case .write(let key, let value):
            let started = ContinuousClock.now
            let logger = logger
            let retryAfterSeconds = retryAfterSeconds
            let unavailable = IngressAnswer.unavailable(retryAfterSeconds: retryAfterSeconds)
            do throws(KafkaError) {
                try producer.send(KafkaProducerRecord(topic: topic, key: key, value: value)) { result in
                    metrics.kafkaLatency.observe(started.duration(to: .now))
                    switch result {
                    case .success:
                        reply(.accepted)
                    case .failure(let error):
                        logger.warning(
                            "ingress record not acknowledged",
                            metadata: [
                                "error": .string(error.description),
                                "kafka.may_be_stored": .string(String(error.mayHaveBeenStored)),
                            ])
                        reply(
                            .notAcknowledged(
                                mayHaveBeenStored: error.mayHaveBeenStored, retryAfterSeconds: retryAfterSeconds))
                    }
                }
            } catch {
                logger.warning("ingress record not queued", metadata: ["error": .string(error.description)])
                reply(unavailable)
            }
        }
    }
}
