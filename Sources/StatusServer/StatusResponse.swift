/// What the status endpoints answer to one request; the server adds `Content-Length` and omits the body for HEAD.
struct StatusResponse: Equatable {
    var status: Int
    var contentType: String = "text/plain; charset=utf-8"
    var extraHeaders: [String: String] = [:]
    var body: String
}
