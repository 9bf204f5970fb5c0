import TestSupport

extension Repository {
    /// This target's folder (the Python validators).
    static let tests = path("Tests/PushCoreIntegrationTests")
}
