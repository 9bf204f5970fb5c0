import Providers

extension GoogleServiceAccount {
    /// Why the account's `token_uri` cannot be used, or `nil`: not a URL `BaseURL` accepts, or `http://` without
    /// `allowsHTTP` (`PUSH_ALLOW_INSECURE_HTTP=true`). The same check for the default app's and every app folder's.
    package func tokenURIProblem(allowsHTTP: Bool) -> String? {
        if let problem = BaseURL.problem(with: tokenURI) { return "token_uri \(problem)" }
        do {
            try WorkerConfiguration.checkTransport(of: tokenURI, variable: "token_uri", allowsHTTP: allowsHTTP)
        } catch {
            return "token_uri \(error.reason)"
        }
        return nil
    }
}
