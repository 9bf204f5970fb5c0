public import PushPipeline

/// A provider the worker starts without, and why: its credentials Secret is not mounted.
public struct AbsentProvider: Sendable, Equatable, CustomStringConvertible {
    public var provider: PushProvider
    /// The credentials-file variable whose file is missing: the one a start without any provider names.
    public var variable: String
    /// Names the variables: "APNS_KEY_FILE /secrets/AuthKey.p8 does not exist, APNS_KEY_ID, APNS_TEAM_ID unset".
    public var reason: String

    public var description: String { "\(provider.rawValue): \(reason)" }
}

/// Each provider is optional, so that one set of manifests mounting both providers' Secrets as optional volumes
/// runs with either Secret alone. A provider is left out (all its `APNS_*` or `FCM_*` variables dropped) when none
/// of its identity variables is set, at least one of its credential-file variables is, and none of those files
/// exists: the Secret behind them is absent. Anything else is the provider's own configuration, checked as usual:
/// an identity variable without its file, or a file without its identity variables, is a clear start error naming
/// the variable; a file that exists but is broken too.
///
/// APNs' identity variables are `APNS_KEY_ID`, `APNS_TEAM_ID` and `APNS_CERT_KEY_PASSWORD`, its credential files
/// `APNS_KEY_FILE`, `APNS_CERT_FILE` and `APNS_CERT_KEY_FILE`; FCM has only `FCM_SERVICE_ACCOUNT_FILE` (the project
/// is the service account's); Web Push only `WEBPUSH_VAPID_KEY_FILE` (its subject goes with it).
enum AbsentProviders {
    /// One provider's variables as the rule sees them.
    struct Variables {
        var provider: PushProvider
        var prefix: String
        var identity: [String]
        var files: [String]
    }

    static let providers = [
        Variables(
            provider: .apns, prefix: "APNS_", identity: ["APNS_KEY_ID", "APNS_TEAM_ID", "APNS_CERT_KEY_PASSWORD"],
            files: ["APNS_KEY_FILE", "APNS_CERT_FILE", "APNS_CERT_KEY_FILE"]),
        Variables(provider: .fcm, prefix: "FCM_", identity: [], files: ["FCM_SERVICE_ACCOUNT_FILE"]),
        Variables(provider: .webpush, prefix: "WEBPUSH_", identity: [], files: ["WEBPUSH_VAPID_KEY_FILE"]),
    ]

    /// `variables` without the variables of every absent provider, and those providers. When none remains, the
    /// configuration's "no provider configured" error says why each was left out (`SettingReader.absentProviders`).
    static func leaveOut(from variables: [String: String], files: some FileReading)
        -> (variables: [String: String], absent: [AbsentProvider])
    {
        func isSet(_ name: String) -> Bool { !(variables[name] ?? "").isEmpty }
        var remaining = variables
        var absent: [AbsentProvider] = []
        for provider in providers {
            let setFiles = provider.files.filter(isSet)
            guard !setFiles.isEmpty, !provider.identity.contains(where: isSet),
                setFiles.allSatisfy({ files.stamp(of: variables[$0] ?? "") == nil })
            else { continue }
            let missing = setFiles.map { "\($0) \(variables[$0] ?? "") does not exist" }
            let unset = provider.identity.isEmpty ? [] : [provider.identity.joined(separator: ", ") + " unset"]
            absent.append(
                AbsentProvider(
                    provider: provider.provider, variable: setFiles[0],
                    reason: (missing + unset).joined(separator: ", ")))
            remaining = remaining.filter { !$0.key.hasPrefix(provider.prefix) }
        }
        return (remaining, absent)
    }
}
