/// `platform :ios, '15.0'` in a CocoaPods Podfile: the major version, and its line.
public enum PodfileReader {
    public static func deploymentTarget(_ text: String) -> (major: Int, line: Int)? {
        for (number, raw) in GradleSettings.stripComments(text.replacingLineEnds().replacingHashComments()).split(
            separator: "\n", omittingEmptySubsequences: false
        ).enumerated() {
            let line = raw.trimmingWhitespaceSub()
            guard line.hasPrefix("platform :ios") else { continue }
            let quoted = line.split(whereSeparator: { $0 == "'" || $0 == "\"" })
            guard quoted.count >= 2, let major = Int(quoted[1].split(separator: ".").first ?? "") else { return nil }
            return (major, number + 1)
        }
        return nil
    }
}
