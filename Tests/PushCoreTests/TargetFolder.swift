import TestSupport

extension Repository {
    /// This target's folder (the goldens).
    static let tests = path("Tests/PushCoreTests")
}
