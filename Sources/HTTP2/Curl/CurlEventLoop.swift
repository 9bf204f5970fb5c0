internal import CCurl
import Essentials
import Foundation
import HTTPTypes
import Synchronization

/// The thread that drives libcurl's multi handle: it takes submitted transfers from a locked inbox, starts them
/// within the per-origin stream bounds, polls, and finishes them.
///
/// `@unchecked Sendable`: everything but `inbox` and `multi.wakeup()` is confined to the event-loop thread; the
/// inbox locks, and `curl_multi_wakeup` is documented as callable from any thread.
final class CurlEventLoop: RequestLoop, @unchecked Sendable {
    private let configuration: HTTP2TransportConfiguration
    private let certificates: TrustedCertificates?
    private let multi: MultiHandle
    let inbox = LoopInbox<CurlTransfer>()
    /// Connections opened and transfers sent again, for `CurlTransport.counts`.
    let counters = TransportCounters()
    private let clock = ContinuousClock()

    // Confined to the event-loop thread.
    private var waiting: [RequestOrigin: RingBuffer<CurlTransfer>] = [:]
    private var inFlight: [RequestOrigin: Int] = [:]
    /// The origins of requests that asked for one stream until a 2xx (`HTTPRequest.oneStreamUntilOriginSucceeds`):
    /// false until one of the origin's requests was answered 2xx, then true.
    private var oneStreamOrigins: [RequestOrigin: Bool] = [:]
    /// Origins that answered over HTTP/1.x (no ALPN h2): one request per connection.
    private var http1Origins: Set<RequestOrigin> = []
    /// Origins whose server refused requests since it last answered, and when their requests may start again.
    private var refusals: [RequestOrigin: RefusalBackoff] = [:]
    /// Origins whose server refused a stream, and how many of their requests it takes now (`AcceptedStreams`).
    private var accepted: [RequestOrigin: AcceptedStreams] = [:]
    private var running: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    private var known: [UInt64: CurlTransfer] = [:]
    private var idleHandles: [EasyHandle] = []
    private var lastExpirySweep: ContinuousClock.Instant
    /// When the loop last started a turn (a turn waits at most a second).
    private let turns = TurnWatch()
    /// The CPU time of the event-loop thread.
    let cpu = ThreadCPUClock()
    /// The loop's own wake-up (an eventfd), for the turns `pacer` makes wait without libcurl.
    private let pacingWakeup: Int32
    private var pacer = IdleTurnPacer()
    private let received = CurlTransfer.ReceivedBytes()

    init(configuration: HTTP2TransportConfiguration) throws(HTTPError) {
        self.configuration = configuration
        certificates = try configuration.extraCAFile.map { file throws(HTTPError) in
            try TrustedCertificates(extraFile: file)
        }
        try configuration.clientCertificate?.validate()
        guard let multi = MultiHandle(configuration: configuration) else {
            throw HTTPError(.connect, "libcurl could not create a multi handle")
        }
        self.multi = multi
        pacingWakeup = pw_eventfd_create()
        guard pacingWakeup >= 0 else {
            throw HTTPError(.connect, "could not create the HTTP/2 event loop: \(String(cString: strerror(errno)))")
        }
        lastExpirySweep = clock.now
    }

    deinit { close(pacingWakeup) }

    /// The combined CA bundle written for `extraCAFile`, if any (tests check its removal).
    var combinedCAFile: String? { certificates?.path }

    /// Starts the event-loop thread.
    func start() {
        Thread.start(named: "http2-curl") { [self] in run() }
    }

    /// Interrupts the loop's wait, in `curl_multi_poll` (a write to libcurl's socket pair) or paced; safe from any
    /// thread.
    func wake() {
        multi.wakeup()
        pw_eventfd_signal(pacingWakeup)
    }

    // MARK: - The event-loop thread

    /// How long ago the loop last started a turn; more than a few seconds means the thread is stuck or gone.
    var timeSinceLastTurn: Duration { turns.sinceLastTurn }

    private func run() {
        cpu.follow()
        defer { cpu.stop() }
        while true {
            _ = turns.turnStarts()
            let (submitted, cancelled, isStopping) = inbox.take()
            for transfer in submitted { accept(transfer) }
            for id in cancelled { drop(id, with: HTTPError(.cancelled, "request cancelled")) }
            if isStopping { break }
            let receivedBefore = received.count
            var finished = 0
            var finishedInTurn = 0
            repeat {
                startReady()
                multi.perform()
                finished = finishCompleted()
                finishedInTurn += finished
            } while finished > 0
            sweepExpiredWaiting()
            let waitStarted = clock.now
            if pacer.paces {
                pw_eventfd_wait(pacingWakeup, Int32(pacer.pause.roundedUpMilliseconds))
            } else {
                multi.poll(milliseconds: waiting.isEmpty ? 1000 : 100)
            }
            pacer.turnEnded(
                didSomething: !submitted.isEmpty || !cancelled.isEmpty || finishedInTurn > 0
                    || received.count != receivedBefore,
                waited: clock.now - waitStarted)
        }
        for id in Array(known.keys) { drop(id, with: HTTPError(.cancelled, "the HTTP/2 client is shut down")) }
        idleHandles = []
        certificates?.remove()
        inbox.close()
    }

    private func accept(_ transfer: CurlTransfer) {
        known[transfer.id] = transfer
        if transfer.request.oneStreamUntilOriginSucceeds, oneStreamOrigins[transfer.origin] == nil {
            oneStreamOrigins[transfer.origin] = false
        }
        waiting[transfer.origin, default: RingBuffer()].append(transfer)
    }

    /// Requests of `origin` allowed in flight now.
    private func limit(for origin: RequestOrigin) -> Int {
        if oneStreamOrigins[origin] == false { return 1 }
        if !origin.isTLS || http1Origins.contains(origin) { return max(1, configuration.maxConnectionsPerHost) }
        return accepted[origin]?.allowed ?? configuration.maxInFlightPerOrigin
    }

    /// Hands waiting transfers to libcurl while their origin has room, oldest first; an origin that refused
    /// requests waits out its backoff first.
    private func startReady() {
        let now = clock.now
        for origin in Array(waiting.keys) where refusals[origin]?.allowsStart(at: now) ?? true {
            let allowed = limit(for: origin)
            while inFlight[origin, default: 0] < allowed, let transfer = waiting[origin]?.popFirst() {
                guard !transfer.isFinished else { continue }
                start(transfer)
            }
            if waiting[origin]?.isEmpty == true { waiting[origin] = nil }
        }
    }

    /// Hands `transfer` to libcurl on an easy handle; one with 50 ms or less left times out unsent
    /// (`PendingRequest.hasTimeLeft`).
    private func start(_ transfer: CurlTransfer) {
        let now = clock.now
        guard transfer.hasTimeLeft(at: now) else {
            complete(transfer, with: .failure(TransferFailure.deadlinePassed(transfer.origin)))
            return
        }
        guard let handle = idleHandles.popLast() ?? makeHandle() else {
            complete(transfer, with: .failure(HTTPError(.connectionLost, "libcurl could not create an easy handle")))
            return
        }
        transfer.configure(handle, configuration: configuration, tally: received, now: now)
        guard multi.add(handle) else {
            recycle(handle)
            complete(transfer, with: .failure(HTTPError(.connectionLost, "libcurl refused the transfer")))
            return
        }
        running[handle.raw] = transfer
        inFlight[transfer.origin, default: 0] += 1
    }

    /// Finishes every transfer libcurl reports done; returns how many.
    private func finishCompleted() -> Int {
        var count = 0
        while let (raw, code) = multi.nextFinished() {
            guard let transfer = running[raw], let handle = transfer.handle else { continue }
            count += 1
            release(transfer, handle: handle)
            counters.connectionsOpened(handle.info(CURLINFO_NUM_CONNECTS))
            if transfer.isOversized {
                counters.oversizedResponse()
                recycle(handle)
                complete(
                    transfer,
                    with: .failure(
                        TransferFailure.oversizedResponse(transfer.origin, limit: configuration.maxResponseBytes)))
                continue
            }
            let status = handle.info(CURLINFO_RESPONSE_CODE)
            // libcurl 7.88 can report a receive error for a stream whose whole response arrived just before the
            // server closed the connection (e.g. after GOAWAY); a response known to be complete is a response.
            if code == CURLE_OK || (status > 0 && transfer.hasCompleteResponse && isConnectionError(code)) {
                if (200..<300).contains(status), oneStreamOrigins[transfer.origin] == false {
                    oneStreamOrigins[transfer.origin] = true
                }
                refusals[transfer.origin] = nil
                if var streams = accepted[transfer.origin] {
                    streams.answered()
                    accepted[transfer.origin] = streams.isAtBound ? nil : streams
                }
                if handle.info(CURLINFO_HTTP_VERSION) != Int(CURL_HTTP_VERSION_2_0) {
                    http1Origins.insert(transfer.origin)
                }
                let response = HTTPResponse(
                    status: status, headers: transfer.responseHeaders, body: transfer.responseBody)
                recycle(handle)
                complete(transfer, with: .success(response))
                continue
            }
            let beforeDeadline = transfer.hasTimeLeft(at: clock.now)
            if transfer.stoppedReconnect {
                // The server refused the stream (or the reused connection was dead): sent again, first in its
                // origin's queue, once the origin's backoff allows, while its allowance and deadline do.
                refusals[transfer.origin, default: RefusalBackoff()].refused(at: clock.now)
                accepted[transfer.origin, default: AcceptedStreams(bound: configuration.maxInFlightPerOrigin)]
                    .refused(stillInFlight: inFlight[transfer.origin, default: 0])
                if !beforeDeadline {
                    complete(transfer, with: .failure(TransferFailure.deadlinePassed(transfer.origin)))
                } else if transfer.resends.allowsResend(after: .refused) {
                    waiting[transfer.origin, default: RingBuffer()].prepend(transfer)
                    counters.resent()
                } else {
                    complete(
                        transfer,
                        with: .failure(
                            HTTPError(
                                .connectionLost, "connection to \(transfer.origin) lost: the server refused the stream")
                        ))
                }
                continue
            }
            if transfer.refusedAddress {
                complete(transfer, with: .failure(transfer.origin.addressRefusal))
                continue
            }
            let detail = handle.errorText
            let failure = TransferFailure(
                code: code, receivedResponseBytes: transfer.receivedResponseBytes, beforeDeadline: beforeDeadline,
                detail: detail)
            let verifyResult = failure.kind == .tls ? handle.info(CURLINFO_SSL_VERIFYRESULT) : 0
            if failure.isRetriable && beforeDeadline && transfer.resends.allowsResend(after: .lostBeforeResponse) {
                // GOAWAY'd or reset before any response byte: libcurl closed that connection, so the next attempt
                // goes out on another one. It goes first in its origin's queue.
                refusals[transfer.origin, default: RefusalBackoff()].refused(at: clock.now)
                waiting[transfer.origin, default: RingBuffer()].prepend(transfer)
                counters.resent()
                continue
            }
            complete(
                transfer,
                with: .failure(
                    TransferFailure.error(
                        kind: failure.kind, code: code, origin: transfer.origin, certificateVerifyResult: verifyResult,
                        detail: detail, presentedClientCertificate: configuration.clientCertificate != nil))
            )
        }
        return count
    }

    /// True for results that mean the connection broke (rather than a deadline, TLS or request problem).
    private func isConnectionError(_ code: CURLcode) -> Bool {
        TransferFailure(code: code, receivedResponseBytes: true, beforeDeadline: true).kind == .connectionLost
    }

    /// Removes an in-flight transfer's handle from libcurl and frees its stream slot.
    private func release(_ transfer: CurlTransfer, handle: EasyHandle) {
        multi.remove(handle)
        running[handle.raw] = nil
        transfer.handle = nil
        inFlight[transfer.origin, default: 1] -= 1
    }

    private func complete(_ transfer: CurlTransfer, with result: Result<HTTPResponse, HTTPError>) {
        known[transfer.id] = nil
        transfer.finish(result)
    }

    /// Finishes transfer `id` with `error` wherever it is; unknown ids (already finished) are ignored.
    private func drop(_ id: UInt64, with error: HTTPError) {
        guard let transfer = known[id] else { return }
        if let handle = transfer.handle, running[handle.raw] === transfer {
            release(transfer, handle: handle)
        }
        complete(transfer, with: .failure(error))  // a waiting transfer is skipped when its turn comes
    }

    /// Times out waiting transfers whose deadline passed, at most every 100 ms.
    private func sweepExpiredWaiting() {
        let now = clock.now
        guard now - lastExpirySweep >= .milliseconds(100), !waiting.isEmpty else { return }
        lastExpirySweep = now
        for transfer in known.values where transfer.handle == nil && transfer.deadline <= now {
            complete(transfer, with: .failure(TransferFailure.deadlinePassed(transfer.origin)))
        }
    }

    /// A new easy handle with the client's options and the transfers' callbacks, set once for all its requests.
    private func makeHandle() -> EasyHandle? {
        guard let handle = EasyHandle(configuration: configuration, certificates: certificates) else { return nil }
        CurlTransfer.installCallbacks(on: handle)
        return handle
    }

    /// Keeps a handle, out of libcurl's multi handle, for the next request (which sets every option its own
    /// request needs), up to as many as can be in flight. Only a handle whose attempt got a response (or never
    /// started) comes here: libcurl 7.88 counts its own retries (REFUSED_STREAM, a dead reused connection) in the
    /// handle, only `curl_easy_reset` clears that count, and at 5 it fails the next refusal as a send error
    /// instead of retrying. Any other handle is cleaned up.
    private func recycle(_ handle: EasyHandle) {
        if idleHandles.count < configuration.maxInFlightPerOrigin { idleHandles.append(handle) }
    }
}
