import HTTP2
import HTTPTypes
import IntegrationSupport
import TestSupport
import Testing

/// Runs `body` with a fresh simulator (echo routes only, unless `routes` says more) and stops it afterwards,
/// whatever happens.
func withSimulator(routes: String = "echo", _ body: (PushSimulator) async throws -> Void) async throws {
    let simulator = try await PushSimulator.start(routes: routes)
    do {
        try await body(simulator)
    } catch {
        await simulator.stop()
        throw error
    }
    await simulator.stop()
}

/// Runs `body` with a fresh simulator and a transport of `kind` trusting its CA; shuts both down afterwards.
func withSimulatorAndClient(
    _ kind: HTTP2TransportKind,
    _ configuration: HTTP2TransportConfiguration = HTTP2TransportConfiguration(),
    _ body: (PushSimulator, any HTTP2Transport) async throws -> Void
) async throws {
    try await withSimulator { simulator in
        var configuration = configuration
        configuration.extraCAFile = simulator.endpoint.caFile
        let client = try kind.make(configuration)
        do {
            try await body(simulator, client)
        } catch {
            await client.shutdown()
            throw error
        }
        await client.shutdown()
    }
}

/// A request to the simulator at `path` (which may carry a token) with a generous default deadline.
func request(
    _ simulator: PushSimulator,
    _ path: String,
    method: String = "GET",
    body: String = "",
    headers: [HTTPHeader] = [],
    deadline: Duration = .seconds(60)
) -> HTTPRequest {
    HTTPRequest(
        method: method, url: simulator.baseURL + path, headers: headers, body: Array(body.utf8), deadline: deadline)
}

/// The outcome of one send.
func result(_ client: any HTTPTransport, _ request: HTTPRequest) async -> Result<HTTPResponse, HTTPError> {
    do {
        return .success(try await client.send(request))
    } catch {
        return .failure(error)
    }
}

/// Sends every request concurrently and returns every outcome.
func sendAll(_ client: any HTTPTransport, _ requests: [HTTPRequest]) async -> [Result<HTTPResponse, HTTPError>] {
    await withTaskGroup(of: Result<HTTPResponse, HTTPError>.self) { group in
        for request in requests {
            group.addTask { await result(client, request) }
        }
        return await group.reduce(into: []) { $0.append($1) }
    }
}

extension Result {
    /// The error, if this is a failure.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// Sends `count` GETs of `url` (30 s deadlines) at once, then shuts `client` down: every outcome, and how long the
/// sends took.
func sendAllThenShutDown(
    _ client: any HTTP2Transport, url: String, count: Int
) async -> (results: [Result<HTTPResponse, HTTPError>], elapsed: Duration) {
    let started = ContinuousClock.now
    let results = await sendAll(
        client, (0..<count).map { _ in HTTPRequest(method: "GET", url: url, deadline: .seconds(30)) })
    let elapsed = ContinuousClock.now - started
    await client.shutdown()
    return (results, elapsed)
}
