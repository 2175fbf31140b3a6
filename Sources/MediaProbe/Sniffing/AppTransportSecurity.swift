internal import Findings

/// iOS App Transport Security: apps load only `https://` by default, so plain `http://` media fails unless the app
/// declares an exception (`NSAllowsArbitraryLoads…` or a per-domain one) that the campaign author cannot see.
enum AppTransportSecurity {
    static func isPlainHTTP(_ url: String) -> Bool {
        url.utf8.count >= 7 && url.prefix(7).lowercased() == "http://"
    }

    static func finding(url: String, code: String, what: String) -> Finding? {
        guard isPlainHTTP(url) else { return nil }
        return .warning(
            code,
            "The \(what) URL \(Redaction.redactURL(url)) uses plain http://; App Transport Security blocks it on "
                + "iOS unless the app declares an exception. Serve it over https://.")
    }
}
