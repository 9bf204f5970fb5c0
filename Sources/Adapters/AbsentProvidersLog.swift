public import Configuration
public import Observability
import PushPipeline

extension Logger {
    /// One line per provider started without (`AbsentProviders`), naming why.
    public func logAbsent(_ providers: [AbsentProvider]) {
        for absent in providers {
            notice(
                "provider left out, its credentials are not mounted",
                metadata: ["push.provider": .string(absent.provider.rawValue), "push.reason": .string(absent.reason)])
        }
    }
}
