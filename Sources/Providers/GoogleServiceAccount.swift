import Foundation
import Signing

/// The parts of a Google service-account JSON file that FCM needs.
public struct GoogleServiceAccount: Sendable {
    /// The account's e-mail: the assertion's issuer.
    public let clientEmail: String
    /// The OAuth2 token endpoint; also the assertion's audience.
    public let tokenURI: String
    /// The Firebase project messages are sent to.
    public let projectId: String
    let privateKeyId: String?
    let key: RS256Key

    private struct File: Decodable {
        var clientEmail: String?
        var privateKey: String?
        var privateKeyId: String?
        var tokenUri: String?
        var projectId: String?
    }

    /// Parses the JSON text of the file; errors name the missing or bad field, never its value.
    public init(json: [UInt8]) throws(ProviderConfigurationError) {
        let file: File
        do {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            file = try decoder.decode(File.self, from: Data(json))
        } catch {
            throw ProviderConfigurationError(field: "FCM_SERVICE_ACCOUNT_FILE", reason: "is not a JSON object")
        }
        func required(_ value: String?, _ name: String) throws(ProviderConfigurationError) -> String {
            guard let value, !value.isEmpty else {
                throw ProviderConfigurationError(field: name, reason: "is missing from the service-account file")
            }
            return value
        }
        clientEmail = try required(file.clientEmail, "client_email")
        tokenURI = try required(file.tokenUri, "token_uri")
        projectId = try required(file.projectId, "project_id")
        guard projectId.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ":") || $0.isLowercaseOrDigit })
        else {
            throw ProviderConfigurationError(field: "project_id", reason: "has characters a project id cannot have")
        }
        privateKeyId = file.privateKeyId
        do {
            key = try RS256Key(pem: try required(file.privateKey, "private_key"), label: "private_key")
        } catch let error as SigningError {
            throw ProviderConfigurationError(field: "private_key", reason: error.message)
        } catch let error as ProviderConfigurationError {
            throw error
        } catch {
            throw ProviderConfigurationError(field: "private_key", reason: "cannot be loaded")
        }
    }
}

extension UInt8 {
    fileprivate var isLowercaseOrDigit: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
    }
}
