/// The iOS deployment target and Info.plist an Xcode project's application targets use, from its
/// `project.pbxproj` (an old-style "OpenStep" property list, read with a small parser of its own syntax: it is
/// not XML).
public struct XcodeProjectSettings: Sendable, Hashable {
    public struct AppTarget: Sendable, Hashable {
        public var name: String
        /// The lowest `IPHONEOS_DEPLOYMENT_TARGET` (major version) of its build configurations (the project's
        /// where the target sets none), nil when none is set.
        public var deploymentTarget: Int?
        /// The configuration that sets it (`Release`).
        public var deploymentTargetConfiguration: String?
        /// `INFOPLIST_FILE`, relative to the project's folder (`$(SRCROOT)` removed).
        public var infoPlist: String?
    }

    public var appTargets: [AppTarget]

    public static func read(_ text: String, file: String) throws(AppFileError) -> XcodeProjectSettings {
        var parser = OpenStepParser(scalars: Array(text.unicodeScalars), file: file)
        let root = try parser.parseDocument()
        guard case .dictionary(let top) = root, case .dictionary(let objects)? = top.value("objects") else {
            throw AppFileError(file: file, reason: "no 'objects' dictionary: not a project.pbxproj")
        }
        func object(_ id: PlistValue?) -> [(key: String, value: PlistValue)]? {
            guard case .string(let key)? = id, case .dictionary(let entries)? = objects.value(key) else { return nil }
            return entries
        }
        func configurations(_ listID: PlistValue?) -> [(name: String, settings: [(key: String, value: PlistValue)])] {
            guard let list = object(listID), case .array(let ids)? = list.value("buildConfigurations") else {
                return []
            }
            return ids.compactMap { id in
                guard let config = object(id), case .string(let name)? = config.value("name"),
                    case .dictionary(let settings)? = config.value("buildSettings")
                else { return nil }
                return (name, settings)
            }
        }
        var projectConfigs: [String: [(key: String, value: PlistValue)]] = [:]
        for (_, value) in objects {
            guard case .dictionary(let entries) = value, case .string("PBXProject")? = entries.value("isa") else {
                continue
            }
            for (name, settings) in configurations(entries.value("buildConfigurationList")) {
                projectConfigs[name] = settings
            }
        }
        var targets: [AppTarget] = []
        for (_, value) in objects {
            guard case .dictionary(let entries) = value, case .string("PBXNativeTarget")? = entries.value("isa"),
                case .string(let type)? = entries.value("productType"), type == "com.apple.product-type.application"
            else { continue }
            guard case .string(let name)? = entries.value("name") else { continue }
            var target = AppTarget(name: name)
            var platformSDKs: Set<String> = []
            for (configName, settings) in configurations(entries.value("buildConfigurationList")) {
                let inherited = projectConfigs[configName] ?? []
                if case .string(let sdk)? = settings.value("SDKROOT") ?? inherited.value("SDKROOT") {
                    platformSDKs.insert(sdk.lowercased())
                }
                if case .string(let text)? = settings.value("IPHONEOS_DEPLOYMENT_TARGET")
                    ?? inherited.value("IPHONEOS_DEPLOYMENT_TARGET"),
                    let major = Int(text.split(separator: ".").first ?? "")
                {
                    if target.deploymentTarget.map({ major < $0 }) ?? true {
                        target.deploymentTarget = major
                        target.deploymentTargetConfiguration = configName
                    }
                }
                if target.infoPlist == nil, case .string(let plist)? = settings.value("INFOPLIST_FILE") {
                    var path = plist
                    for prefix in ["$(SRCROOT)/", "${SRCROOT}/", "$(PROJECT_DIR)/", "${PROJECT_DIR}/"]
                    where path.hasPrefix(prefix) {
                        path.removeFirst(prefix.count)
                    }
                    target.infoPlist = path
                }
            }
            // An app for macOS, tvOS, watchOS or visionOS (SDKROOT macosx, appletvos…) has no InboxKit inbox on
            // iOS; no SDKROOT at all is Xcode's iOS default for an app target of an iOS project.
            if !platformSDKs.isEmpty, !platformSDKs.contains(where: { $0.hasPrefix("iphoneos") }) { continue }
            targets.append(target)
        }
        return XcodeProjectSettings(appTargets: targets.sorted { $0.name < $1.name })
    }
}

extension [(key: String, value: PlistValue)] {
    func value(_ key: String) -> PlistValue? { last { $0.key == key }?.value }
}

/// The "OpenStep" property list syntax of `project.pbxproj`: `{ key = value; }`, `( a, b, )`, quoted or bare
/// strings, `/* */` and `//` comments, an optional `// !$*UTF8*$!` first line.
struct OpenStepParser {
    let scalars: [Unicode.Scalar]
    let file: String
    var index = 0
    var depth = 0

    init(scalars: [Unicode.Scalar], file: String) {
        self.scalars = scalars
        self.file = file
    }

    mutating func parseDocument() throws(AppFileError) -> PlistValue {
        let value = try parseValue()
        skipTrivia()
        guard index == scalars.count else { throw error("text after the end of the property list") }
        return value
    }

    var line: Int { scalars[..<min(index, scalars.count)].filter { $0 == "\n" }.count + 1 }

    func error(_ reason: String) -> AppFileError { AppFileError(file: file, line: line, reason: reason) }

    mutating func skipTrivia() {
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" {
                index += 1
            } else if scalar == "/", index + 1 < scalars.count, scalars[index + 1] == "/" {
                while index < scalars.count, scalars[index] != "\n" { index += 1 }
            } else if scalar == "/", index + 1 < scalars.count, scalars[index + 1] == "*" {
                index += 2
                while index + 1 < scalars.count, !(scalars[index] == "*" && scalars[index + 1] == "/") { index += 1 }
                index = min(scalars.count, index + 2)
            } else {
                return
            }
        }
    }

    mutating func parseValue() throws(AppFileError) -> PlistValue {
        skipTrivia()
        guard index < scalars.count else { throw error("the property list ends early") }
        depth += 1
        defer { depth -= 1 }
        guard depth < 200 else { throw error("nested deeper than 200 levels") }
        switch scalars[index] {
        case "{":
            index += 1
            var entries: [(key: String, value: PlistValue)] = []
            while true {
                skipTrivia()
                guard index < scalars.count else { throw error("a dictionary is not closed") }
                if scalars[index] == "}" {
                    index += 1
                    return .dictionary(entries)
                }
                guard case .string(let key) = try parseValue() else { throw error("a dictionary key is not a string") }
                skipTrivia()
                guard index < scalars.count, scalars[index] == "=" else { throw error("'=' expected after '\(key)'") }
                index += 1
                let value = try parseValue()
                skipTrivia()
                guard index < scalars.count, scalars[index] == ";" else { throw error("';' expected after '\(key)'") }
                index += 1
                entries.append((key, value))
            }
        case "(":
            index += 1
            var items: [PlistValue] = []
            while true {
                skipTrivia()
                guard index < scalars.count else { throw error("an array is not closed") }
                if scalars[index] == ")" {
                    index += 1
                    return .array(items)
                }
                items.append(try parseValue())
                skipTrivia()
                if index < scalars.count, scalars[index] == "," { index += 1 }
            }
        case "\"":
            index += 1
            var text = String.UnicodeScalarView()
            while index < scalars.count, scalars[index] != "\"" {
                if scalars[index] == "\\", index + 1 < scalars.count {
                    index += 1
                    switch scalars[index] {
                    case "n": text.append("\n")
                    case "t": text.append("\t")
                    default: text.append(scalars[index])
                    }
                } else {
                    text.append(scalars[index])
                }
                index += 1
            }
            guard index < scalars.count else { throw error("a quoted string is not closed") }
            index += 1
            return .string(String(text))
        default:
            var text = String.UnicodeScalarView()
            while index < scalars.count {
                let scalar = scalars[index]
                let bare =
                    (scalar.value >= 0x30 && scalar.value <= 0x39)
                    || (scalar.value | 0x20 >= 0x61 && scalar.value | 0x20 <= 0x7A)
                    || "_$/:.-+".unicodeScalars.contains(scalar)
                guard bare else { break }
                text.append(scalar)
                index += 1
            }
            guard !text.isEmpty else { throw error("unexpected '\(scalars[index])'") }
            return .string(String(text))
        }
    }
}
