internal import CCurl

/// The libcurl this process runs with.
public enum CurlLibrary {
    /// libcurl's version, e.g. `7.88.1` (`curl_version_info`; CURLVERSION_NOW is a macro Swift cannot import).
    public static var version: String {
        guard let info = curl_version_info(CURLVERSION_ELEVENTH), let text = info.pointee.version else {
            return "unknown"
        }
        return String(cString: text)
    }
}
