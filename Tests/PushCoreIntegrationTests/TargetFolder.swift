import TestSupport

extension Repository {
    /// The Python validators (`Tests/PushCoreTests/Validators`, which the push simulator imports too).
    static let validators = path("Tests/PushCoreTests/Validators")
}
