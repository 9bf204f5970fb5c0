import Ingress
import Synchronization

/// The ingress's admission with the keys in force: a keys reload replaces them while requests are being decided,
/// each request taking the admission as it is when it arrives.
final class AdmissionInForce: Sendable {
    private let admission: Mutex<IngressAdmission>

    init(_ admission: IngressAdmission) {
        self.admission = Mutex(admission)
    }

    var current: IngressAdmission { admission.withLock { $0 } }

    /// Puts `keys` in force for every request decided from now on; the allowlist and body limit stay.
    func replaceKeys(with keys: IngressKeys) {
        admission.withLock { admission in
            admission = IngressAdmission(
                keys: keys, allowlist: admission.allowlist, maximumBodyBytes: admission.maximumBodyBytes)
        }
    }
}
