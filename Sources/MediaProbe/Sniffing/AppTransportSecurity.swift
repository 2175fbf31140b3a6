/// Plain-`http://` URLs: a fact every platform's transport rule judges (iOS App Transport Security, Android's
/// cleartext policy: MediaRules).
enum AppTransportSecurity {
    static func isPlainHTTP(_ url: String) -> Bool {
        url.utf8.count >= 7 && url.prefix(7).lowercased() == "http://"
    }
}
