internal import CMicroHTTPD

/// The libmicrohttpd the status server runs with.
public enum MicroHTTPDLibrary {
    /// Its version as the library itself reports it, e.g. `0.9.75`.
    public static var version: String { MHD_get_version().map { String(cString: $0) } ?? "unknown" }
}
