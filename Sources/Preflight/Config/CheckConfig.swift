import Findings
public import HTTPFetch
public import StrictJSON

/// `inbox-assets.json`: option defaults and the rules of `check` (README "The config file").
///
/// Strict JSON (the project's parser: no comments, no trailing commas, duplicate keys refused); every unknown key
/// is an error at its line and column. Top-level keys are the commands' long option names in lower camel case
/// (`failOn`, `hostConcurrency`: derived from the option tables, so every option has one) plus `ignore`,
/// `severity`, `acceptStatus` and `headers`.
public struct CheckConfig: Sendable {
    /// An option default: the option's long name, its values (one, or several for a repeatable option; none for a
    /// flag set to `true`), and where it was written (`inbox-assets.json:3:12`).
    public struct OptionDefault: Sendable, Hashable {
        public var option: String
        public var values: [String]
        public var origin: String
        /// Set for an entry of a `commands` section (`check`, `pass verify`): it applies to that command only.
        public var command: String? = nil
    }

    /// A request header sent to hosts matching a glob; its value has its `${ENV}` references expanded.
    public typealias HostHeader = HTTPFetch.HostHeader

    /// HTTP statuses accepted for hosts matching a glob: their `asset.httpStatus` (and the `card.broken` they
    /// cause) are suppressed.
    public struct AcceptedStatus: Sendable, Hashable {
        public var host: String
        public var statuses: [Int]
    }

    /// The file read, or `nil` when there is none.
    public var path: String?
    public var options: [OptionDefault] = []
    public var rules = FindingRules()
    public var headers: [HostHeader] = []

    public init(path: String? = nil) { self.path = path }

    /// A config error: `file:line:column: message`.
    public struct ConfigError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Parses a config file's bytes.
    /// - Parameters:
    ///   - optionKeys: config key → option name, for every option of every command.
    ///   - commandKeys: when given, the config keys of each command (`"check"`, `"pass verify"`): a `commands`
    ///     section must name one of them and use only its keys.
    ///   - environment: for `${NAME}` in header values.
    public static func parse(
        _ bytes: [UInt8], path: String, optionKeys: [String: String], commandKeys: [String: Set<String>]? = nil,
        environment: [String: String]
    ) throws(ConfigError) -> CheckConfig {
        let root: JSONValue
        do {
            let (value, warnings) = try JSON.parseDocument(bytes)
            if let duplicate = warnings.first(where: { if case .duplicateKey = $0.kind { true } else { false } }) {
                throw ConfigError(description: "\(path):\(duplicate.line):\(duplicate.column): duplicate key")
            }
            root = value
        } catch let error as JSONParseError {
            throw ConfigError(description: "\(path):\(error.line):\(error.column): \(error.reason)")
        } catch let error as ConfigError {
            throw error
        } catch {
            throw ConfigError(description: "\(path): \(error)")
        }
        let reader = Reader(path: path, bytes: bytes, positions: JSONPositions(bytes))
        guard case .object(let object) = root else { throw reader.error("", "the config must be a JSON object") }
        var config = CheckConfig(path: path)
        for (key, value) in object {
            switch key {
            case "$schema": continue
            case "ignore": config.rules.ignore = try reader.ignoreRules(value)
            case "severity": config.rules.severity = try reader.severities(value)
            case "acceptStatus": config.rules.acceptedStatuses = try reader.acceptedStatuses(value)
            case "headers": config.headers = try reader.headers(value, environment: environment)
            case "commands":
                for (command, section) in try reader.object(value, "commands") {
                    let sectionPath = JSONPositions.member("commands", command)
                    if let commandKeys, commandKeys[command] == nil {
                        throw reader.keyError(
                            sectionPath,
                            "unknown command \"\(command)\" (commands: "
                                + commandKeys.keys.sorted().map { "\"\($0)\"" }.joined(separator: ", ") + ")")
                    }
                    for (sectionKey, sectionValue) in try reader.object(section, sectionPath) {
                        let keyPath = JSONPositions.member(sectionPath, sectionKey)
                        guard let option = optionKeys[sectionKey],
                            commandKeys?[command].map({ $0.contains(sectionKey) }) ?? true
                        else {
                            throw reader.keyError(
                                keyPath, "unknown option key \"\(sectionKey)\" for \"\(command)\"")
                        }
                        config.options.append(
                            OptionDefault(
                                option: option, values: try reader.optionValues(keyPath, sectionValue),
                                origin: reader.at(keyPath), command: command))
                    }
                }
            default:
                guard let option = optionKeys[key] else {
                    throw reader.keyError(
                        key,
                        "unknown key \"\(key)\" (keys: option names in camelCase such as failOn, and commands, "
                            + "ignore, severity, acceptStatus, headers)")
                }
                config.options.append(
                    OptionDefault(option: option, values: try reader.optionValues(key, value), origin: reader.at(key)))
            }
        }
        return config
    }

    /// The effective configuration as JSON (`inbox-assets config`): header values redacted.
    public func json(effective: [(key: String, value: JSONValue)]) -> JSONValue {
        var object = JSONObject([("file", .optional(path))])
        object["options"] = .object(JSONObject(effective))
        object["ignore"] = .array(
            rules.ignore.map { rule in
                var fields = JSONObject()
                if let code = rule.code { fields["code"] = .string(code) }
                if let url = rule.url { fields["url"] = .string(url) }
                if let input = rule.input { fields["input"] = .string(input) }
                if let kind = rule.kind { fields["kind"] = .string(kind) }
                fields["reason"] = .string(rule.reason)
                return .object(fields)
            })
        object["severity"] = .object(
            JSONObject(rules.severity.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value.rawValue)) }))
        object["acceptStatus"] = .object(
            JSONObject(rules.acceptedStatuses.map { ($0.host, .array($0.statuses.map(JSONValue.int))) }))
        var hosts = JSONObject()
        for header in headers {
            var fields = hosts[header.host]?.objectValue ?? JSONObject()
            fields[header.name] = .string("REDACTED")
            hosts[header.host] = .object(fields)
        }
        object["headers"] = .object(hosts)
        return .object(object)
    }

    private struct Reader {
        let path: String
        let bytes: [UInt8]
        let positions: JSONPositions

        func at(_ jsonPath: String, key: Bool = false) -> String {
            let offset = (key ? positions.keys[jsonPath] : nil) ?? positions.offset(of: jsonPath) ?? 0
            let (line, column) = positions.lineColumn(of: offset, in: bytes)
            return "\(path):\(line):\(column)"
        }

        func error(_ jsonPath: String, _ message: String) -> ConfigError {
            ConfigError(description: "\(at(jsonPath)): \(message)")
        }

        func keyError(_ jsonPath: String, _ message: String) -> ConfigError {
            ConfigError(description: "\(at(jsonPath, key: true)): \(message)")
        }

        func optionValues(_ key: String, _ value: JSONValue) throws(ConfigError) -> [String] {
            switch value {
            case .string(let text): return [text]
            case .number(let number): return [number.text]
            case .bool(true): return []
            case .array(let items):
                var values: [String] = []
                for (index, item) in items.enumerated() {
                    switch item {
                    case .string(let text): values.append(text)
                    case .number(let number): values.append(number.text)
                    default: throw error("\(key)[\(index)]", "expected a string or a number")
                    }
                }
                return values
            default:
                throw error(key, "expected a string, a number, true (a flag) or an array (a repeatable option)")
            }
        }

        func object(_ value: JSONValue, _ jsonPath: String) throws(ConfigError) -> JSONObject {
            guard case .object(let object) = value else { throw error(jsonPath, "expected an object") }
            return object
        }

        func string(_ value: JSONValue, _ jsonPath: String) throws(ConfigError) -> String {
            guard case .string(let text) = value, !text.isEmpty else {
                throw error(jsonPath, "expected a non-empty string")
            }
            return text
        }

        func ignoreRules(_ value: JSONValue) throws(ConfigError) -> [IgnoreRule] {
            guard case .array(let items) = value else { throw error("ignore", "expected an array of rules") }
            var rules: [IgnoreRule] = []
            for (index, item) in items.enumerated() {
                let base = "ignore[\(index)]"
                var rule = IgnoreRule(reason: "")
                for (key, field) in try object(item, base) {
                    let fieldPath = Self.member(base, key)
                    switch key {
                    case "code": rule.code = try string(field, fieldPath)
                    case "url": rule.url = try string(field, fieldPath)
                    case "input": rule.input = try string(field, fieldPath)
                    case "kind": rule.kind = try string(field, fieldPath)
                    case "reason": rule.reason = try string(field, fieldPath)
                    default:
                        throw keyError(
                            fieldPath, "unknown key \"\(key)\" in an ignore rule (code, url, input, kind, reason)")
                    }
                }
                guard !rule.reason.isEmpty else { throw error(base, "an ignore rule needs a \"reason\"") }
                guard rule.code != nil || rule.url != nil || rule.input != nil || rule.kind != nil else {
                    throw error(base, "an ignore rule needs at least one of code, url, input, kind")
                }
                rules.append(rule)
            }
            return rules
        }

        func severities(_ value: JSONValue) throws(ConfigError) -> [String: Severity] {
            var result: [String: Severity] = [:]
            for (code, field) in try object(value, "severity") {
                guard case .string(let text) = field, let severity = Severity(rawValue: text) else {
                    throw error(Self.member("severity", code), "expected \"error\", \"warning\" or \"info\"")
                }
                result[code] = severity
            }
            return result
        }

        func acceptedStatuses(_ value: JSONValue) throws(ConfigError) -> [AcceptedStatus] {
            var result: [AcceptedStatus] = []
            for (host, field) in try object(value, "acceptStatus") {
                let fieldPath = Self.member("acceptStatus", host)
                guard case .array(let items) = field else { throw error(fieldPath, "expected an array of statuses") }
                var statuses: [Int] = []
                for (index, item) in items.enumerated() {
                    guard case .number(let number) = item, let status = number.intValue, (100...599).contains(status)
                    else { throw error("\(fieldPath)[\(index)]", "expected an HTTP status from 100 to 599") }
                    statuses.append(status)
                }
                result.append(AcceptedStatus(host: host, statuses: statuses))
            }
            return result
        }

        func headers(_ value: JSONValue, environment: [String: String]) throws(ConfigError) -> [HostHeader] {
            var result: [HostHeader] = []
            for (host, field) in try object(value, "headers") {
                let hostPath = Self.member("headers", host)
                for (name, headerValue) in try object(field, hostPath) {
                    let valuePath = Self.member(hostPath, name)
                    guard name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") }), !name.isEmpty
                    else { throw keyError(valuePath, "\"\(name)\" is not a header name") }
                    let text = try expand(try string(headerValue, valuePath), environment, valuePath)
                    guard !text.contains(where: { $0 == "\r" || $0 == "\n" }) else {
                        throw error(valuePath, "a header value cannot contain a line break")
                    }
                    result.append(HostHeader(host: host, name: name, value: text))
                }
            }
            return result
        }

        /// `${NAME}` → the environment variable's value; an unset variable is an error.
        func expand(_ text: String, _ environment: [String: String], _ jsonPath: String) throws(ConfigError) -> String {
            var out = ""
            var rest = Substring(text)
            while let start = rest.range(of: "${") {
                out += rest[..<start.lowerBound]
                guard let end = rest[start.upperBound...].firstIndex(of: "}") else {
                    throw error(jsonPath, "unterminated ${ in the header value")
                }
                let name = String(rest[start.upperBound..<end])
                guard let value = environment[name] else {
                    throw error(jsonPath, "the environment variable \(name) is not set")
                }
                out += value
                rest = rest[rest.index(after: end)...]
            }
            return out + rest
        }

        static func member(_ base: String, _ key: String) -> String { JSONPositions.member(base, key) }
    }
}
