public import PushCore

/// What `render` and `strings` read from the environment, through the same reader as `run` (their flags win over
/// it): the rules table's file, the APNs topic, the service account that names the FCM project, the default locale.
public struct RenderConfiguration: Sendable, Equatable {
    /// `PUSH_RULES_FILE`; the built-in table when unset.
    public var rulesFile: String?
    /// `APNS_TOPIC`.
    public var apnsTopic: String?
    /// `FCM_SERVICE_ACCOUNT_FILE`, whose `project_id` is the FCM project.
    public var serviceAccountFile: String?
    /// `PUSH_DEFAULT_LOCALE`.
    public var defaultLocale: LanguageTag?

    /// Reads the settings; the error names the variable.
    public static func load(environment: [String: String]) throws(InvalidSetting) -> RenderConfiguration {
        let reader = SettingReader(variables: environment)
        return RenderConfiguration(
            rulesFile: reader.optional("PUSH_RULES_FILE"), apnsTopic: reader.optional("APNS_TOPIC"),
            serviceAccountFile: reader.optional("FCM_SERVICE_ACCOUNT_FILE"),
            defaultLocale: try reader.languageTag("PUSH_DEFAULT_LOCALE"))
    }
}
