import Essentials
import Foundation
import HTTP2
import HTTPTypes
import Providers
import Synchronization

extension HTTPResponse {
    /// A response with a JSON body.
    static func json(_ status: Int, _ body: String, headers: [HTTPHeader] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers, body: Array(body.utf8))
    }
}

extension HTTPRequest {
    /// The first value of header `name`, compared case-insensitively.
    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}
