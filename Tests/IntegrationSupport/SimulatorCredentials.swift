import Foundation

/// The APNs test key the simulator generated (`POST /control/apns-credentials`).
public struct APNsCredentials: Decodable, Sendable {
    /// A `.p8` (PKCS#8 PEM) P-256 key file.
    public let keyFile: String
    public let keyId: String
    public let teamId: String
    /// The bundle id the simulator accepts as `apns-topic`.
    public let topic: String
}

/// The Google service-account file the simulator wrote (`POST /control/oauth-credentials`).
public struct ServiceAccountFile: Decodable, Sendable {
    public let serviceAccountFile: String
    public let projectId: String
}

extension PushSimulator {
    /// Makes the simulator generate an APNs signing key and returns where it is and what it signs for; with `app`
    /// (letters and digits), that app's own key, team and topic `com.example.<app>`.
    public func apnsCredentials(app: String? = nil) async throws -> APNsCredentials {
        let body = app.map { #"{"app":"\#($0)"}"# } ?? "{}"
        return try await control("POST", "/control/apns-credentials", body: body, as: APNsCredentials.self)
    }

    /// Makes the simulator write a service-account file whose `token_uri` is its own OAuth endpoint; with
    /// `project`, another account of that project, whose tokens FCM accepts for that project only.
    public func serviceAccountFile(project: String? = nil) async throws -> ServiceAccountFile {
        let projectMember = project.map { #","project":"\#($0)""# } ?? ""
        return try await control(
            "POST", "/control/oauth-credentials", body: #"{"token_uri":"\#(baseURL)/token"\#(projectMember)}"#,
            as: ServiceAccountFile.self)
    }
}

/// A client certificate the simulator issued (`POST /control/apns-client-certificate`).
public struct IssuedCertificate: Decodable, Sendable {
    public let certificateFile: String
    public let keyFile: String
}

extension PushSimulator {
    /// Makes the simulator issue an APNs client certificate for `topic`, its key encrypted with `password` when
    /// given, signed by a CA the mutual-TLS listener does not trust when `unrelatedCA`.
    public func apnsClientCertificate(
        topic: String = "com.example.chat", password: String? = nil, unrelatedCA: Bool = false
    ) async throws -> IssuedCertificate {
        var request: [String: Any] = ["topic": topic, "unrelated_ca": unrelatedCA]
        request["password"] = password
        let body = String(decoding: try JSONSerialization.data(withJSONObject: request), as: UTF8.self)
        return try await control("POST", "/control/apns-client-certificate", body: body, as: IssuedCertificate.self)
    }
}
