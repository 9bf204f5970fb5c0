/// What an entry of a classification table tells the client to do with a status and reason.
enum ProviderAction: Sendable, Equatable {
    /// The device token is dead.
    case invalidToken
    /// Permanent failure of this request.
    case reject
    /// Transient failure; `minimumDelay` is a floor on the wait, if the provider asks for one.
    case retry(minimumDelay: Duration?)
    /// Our credentials were refused; `renewable` says whether a fresh token can fix it (retried once).
    case credentials(renewable: Bool)
}
