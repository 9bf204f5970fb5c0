import CLI
import Foundation
import IngressServer

/// `push-worker ingress`: IMKIT's external push service over HTTP, writing each accepted push to Kafka.
enum IngressCommand {
    static let subcommand = Subcommand(
        name: "ingress",
        summary: "Takes IMKIT's push callbacks and custom pushes over HTTP and writes each one to the input topic.",
        synopsis: "[--config FILE]",
        discussion: """
            POST /imkit/push (PUSH, v1), POST /imkit/push/v2 (PUSH_GENERIC, v2), POST /push/push2clients
            (custom push), each with a key of PUSH_INGRESS_KEYS as IM-API-KEY, Authorization: Bearer or
            ?key=. A request is answered 200 only after Kafka acknowledged its record, 503 with
            Retry-After when Kafka did not in time. /metrics, /healthz and /readyz are on PUSH_HTTP_PORT.
            Configured like `run` (docs/ingress.md, docs/configuration.md); a bad setting exits 3.
            """,
        options: [.value("--config", "FILE", "Read NAME=value settings from FILE; the environment overrides them.")],
        run: { arguments in
            await IngressService.run(
                environment: ProcessInfo.processInfo.environment, configFile: arguments.value("--config"))
        }
    )
}
