/// `minSdk`/`minSdkVersion` and `targetSdk`/`targetSdkVersion` assignments in a `build.gradle` or
/// `build.gradle.kts` (Groovy `minSdk 24`, `minSdkVersion 24`, `minSdkVersion(24)`; Kotlin `minSdk = 24`). Gradle
/// is a program, not data: a value that is an expression (`libs.versions.minSdk.get().toInt()`,
/// `rootProject.ext.minSdk`) cannot be read here and is reported, never guessed.
public struct GradleSettings: Sendable, Hashable {
    public var minSdk: Int?
    public var targetSdk: Int?
    /// Where each came from (`build.gradle:12`).
    public var minSdkLine: Int?
    public var targetSdkLine: Int?
    /// Assignments whose value is not a number: (setting, line, the expression).
    public var unreadable: [(setting: String, line: Int, expression: String)] = []
    /// The module applies `com.android.application` (an app, not a library).
    public var isApplication = false

    public static func == (lhs: GradleSettings, rhs: GradleSettings) -> Bool {
        lhs.minSdk == rhs.minSdk && lhs.targetSdk == rhs.targetSdk && lhs.isApplication == rhs.isApplication
    }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(minSdk)
        hasher.combine(targetSdk)
    }

    public static func read(_ text: String) -> GradleSettings {
        var settings = GradleSettings()
        let keys = [("minSdkVersion", true), ("minSdk", true), ("targetSdkVersion", false), ("targetSdk", false)]
        // Longer keys first: `minSdkVersion` is not `minSdk` followed by `Version`.
        for (number, rawLine) in stripComments(text.replacingLineEnds()).split(
            separator: "\n", omittingEmptySubsequences: false
        ).enumerated() {
            let line = String(rawLine)
            if appliesApplicationPlugin(line) { settings.isApplication = true }
            for (key, value) in assignments(in: line, keys: keys.map(\.0)) {
                let isMin = key.hasPrefix("min")
                let name = isMin ? "minSdk" : "targetSdk"
                guard let level = Int(value), (1...99).contains(level) else {
                    settings.unreadable.append((name, number + 1, String(value.prefix(80))))
                    continue
                }
                if isMin {
                    // Several (flavours): the lowest is the floor the app supports.
                    if settings.minSdk.map({ level < $0 }) ?? true {
                        (settings.minSdk, settings.minSdkLine) = (level, number + 1)
                    }
                } else if settings.targetSdk.map({ level > $0 }) ?? true {
                    (settings.targetSdk, settings.targetSdkLine) = (level, number + 1)
                }
            }
        }
        return settings
    }

    /// `key value`, `key = value`, `key(value)` at a word boundary of `line`: each key and its value text (up to
    /// `}`, `;`, `)` or the end of the line).
    static func assignments(in line: String, keys: [String]) -> [(key: String, value: String)] {
        let scalars = Array(line.unicodeScalars)
        // A `.` before the key is fine (`android.defaultConfig.minSdk = 24`); `libs.versions.minSdk.get()` is not
        // an assignment because no space, `=` or `(` follows the key.
        func isWord(_ scalar: Unicode.Scalar) -> Bool {
            scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_"
        }
        var found: [(String, String)] = []
        var index = 0
        while index < scalars.count {
            // `ext.minSdkVersion = 19` defines a property for other modules to read, not this module's setting.
            let receiver = String(
                String.UnicodeScalarView(scalars[..<index].reversed().prefix { isWord($0) || $0 == "." }.reversed()))
            guard index == 0 || !isWord(scalars[index - 1]), !receiver.hasSuffix("ext."),
                let key = keys.first(where: { key in
                    let k = Array(key.unicodeScalars)
                    return index + k.count < scalars.count && Array(scalars[index..<(index + k.count)]) == k
                        && [" ", "\t", "=", "("].contains(scalars[index + k.count])
                })
            else {
                index += 1
                continue
            }
            var cursor = index + key.unicodeScalars.count
            while cursor < scalars.count, [" ", "\t", "=", "("].contains(scalars[cursor]) { cursor += 1 }
            var value = String.UnicodeScalarView()
            var parens = 0
            while cursor < scalars.count {
                let scalar = scalars[cursor]
                if scalar == "(" { parens += 1 }
                if scalar == ")" {
                    if parens == 0 { break }
                    parens -= 1
                }
                if scalar == "}" || scalar == ";" { break }
                value.append(scalar)
                cursor += 1
            }
            found.append((key, String(value).trimmingWhitespace()))
            index = cursor
        }
        return found
    }

    /// The line applies the Android application plugin: `id 'com.android.application'`,
    /// `id("com.android.application")`, `apply plugin: 'com.android.application'`, or the version catalog's
    /// `alias(libs.plugins.android.application)`; not a root build file's declaration with `apply false`.
    static func appliesApplicationPlugin(_ line: String) -> Bool {
        guard line.contains("com.android.application") || line.contains("plugins.android.application") else {
            return false
        }
        return !line.contains("apply false")
    }

    /// The text without `//` and `/* */` comments (strings are not parsed: an SDK assignment has none), line
    /// breaks kept so line numbers stay true.
    static func stripComments(_ text: String) -> String {
        var out = ""
        var iterator = Array(text.unicodeScalars)[...]
        var inBlock = false
        var quote: Unicode.Scalar?
        while let scalar = iterator.first {
            iterator = iterator.dropFirst()
            if let open = quote {
                // Inside a string literal (`exclude 'META-INF/*'`) comment markers are text.
                out.unicodeScalars.append(scalar)
                if scalar == "\\", let next = iterator.first {
                    out.unicodeScalars.append(next)
                    iterator = iterator.dropFirst()
                } else if scalar == open || scalar == "\n" {
                    quote = nil
                }
                continue
            }
            if !inBlock, scalar == "'" || scalar == "\"" {
                quote = scalar
                out.unicodeScalars.append(scalar)
                continue
            }
            if inBlock {
                if scalar == "*", iterator.first == "/" {
                    inBlock = false
                    iterator = iterator.dropFirst()
                } else if scalar == "\n" {
                    out.unicodeScalars.append(scalar)
                }
                continue
            }
            if scalar == "/", iterator.first == "*" {
                inBlock = true
                iterator = iterator.dropFirst()
            } else if scalar == "/", iterator.first == "/" {
                while let next = iterator.first, next != "\n" { iterator = iterator.dropFirst() }
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

extension String {
    /// Ruby's `#` comments removed (Podfile), line breaks kept.
    func replacingHashComments() -> String {
        split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.firstIndex(of: "#").map { String(line[..<$0]) } ?? String(line)
        }.joined(separator: "\n")
    }
}

extension Substring {
    func trimmingWhitespaceSub() -> String { String(self).trimmingWhitespace() }
}

extension String {
    /// `\r\n` and lone `\r` line ends as `\n` (Windows checkouts): lines split the same everywhere.
    func replacingLineEnds() -> String {
        var out = String.UnicodeScalarView()
        var previousCR = false
        for scalar in unicodeScalars {
            if scalar == "\n", previousCR {
                previousCR = false
                continue
            }
            previousCR = scalar == "\r"
            out.append(previousCR ? "\n" : scalar)
        }
        return String(out)
    }
}
