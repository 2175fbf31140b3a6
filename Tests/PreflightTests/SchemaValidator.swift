import Foundation
import StrictJSON

/// A small JSON Schema (draft 2020-12) validator for the keywords `docs/report.schema.json` uses: `type`
/// (a name or an array of names), `required`, `properties`, `additionalProperties` (boolean or schema),
/// `items`, `enum`, `const`, `minimum`, `minItems`, `$ref` to `#/…` pointers (with `$defs`). Annotations (`$schema`,
/// `$id`, `title`, `description`) are ignored. Any other keyword is reported as an error, so the schema cannot
/// quietly rely on a rule this validator does not check.
struct SchemaValidator {
    static let supported: Set<String> = [
        "type", "required", "properties", "additionalProperties", "items", "enum", "const", "minimum", "minItems",
        "$ref",
    ]
    static let annotations: Set<String> = ["$schema", "$id", "title", "description", "$defs"]

    let root: JSONValue

    /// Every violation as `path: reason` (`$.cards[0].assets[1].status: "gone" is not one of …`); empty = valid.
    func validate(_ instance: JSONValue) -> [String] {
        var errors: [String] = []
        check(instance, against: root, at: "$", errors: &errors, depth: 0)
        return errors
    }

    /// Problems of the schema itself: unsupported keywords and `$ref`s that resolve to nothing.
    func lint() -> [String] {
        var errors: [String] = []
        lint(root, at: "#", errors: &errors)
        return errors
    }

    private func lint(_ schema: JSONValue, at path: String, errors: inout [String]) {
        guard case .object(let object) = schema else {
            if case .bool = schema { return }
            errors.append("\(path): a schema must be an object or a boolean")
            return
        }
        for (key, value) in object {
            switch key {
            case "properties", "$defs":
                for (name, child) in value.objectValue ?? JSONObject() {
                    lint(child, at: "\(path)/\(key)/\(name)", errors: &errors)
                }
            case "items", "additionalProperties": lint(value, at: "\(path)/\(key)", errors: &errors)
            case "$ref":
                if resolve(value.stringValue ?? "") == nil {
                    errors.append("\(path): $ref \(value) resolves to nothing")
                }
            default:
                if !Self.supported.contains(key) && !Self.annotations.contains(key) {
                    errors.append("\(path): unsupported keyword \(key)")
                }
            }
        }
    }

    /// The schema a `#/a/b` JSON pointer names.
    private func resolve(_ reference: String) -> JSONValue? {
        guard reference.hasPrefix("#") else { return nil }
        var node: JSONValue? = root
        for token in reference.dropFirst().split(separator: "/") {
            let key = token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            node = node?[key]
        }
        return node
    }

    private func check(
        _ instance: JSONValue, against schema: JSONValue, at path: String, errors: inout [String], depth: Int
    ) {
        guard depth < 64 else {
            errors.append("\(path): schema nesting too deep (a $ref cycle?)")
            return
        }
        switch schema {
        case .bool(true): return
        case .bool(false):
            errors.append("\(path): no value is allowed here")
            return
        case .object: break
        default:
            errors.append("\(path): invalid schema \(schema.serialized())")
            return
        }
        if let reference = schema["$ref"]?.stringValue {
            if let target = resolve(reference) {
                check(instance, against: target, at: path, errors: &errors, depth: depth + 1)
            } else {
                errors.append("\(path): $ref \(reference) resolves to nothing")
            }
        }
        if let type = schema["type"] {
            let names = type.arrayValue?.compactMap(\.stringValue) ?? [type.stringValue ?? ""]
            if !names.contains(where: { Self.matches(instance, type: $0) }) {
                errors.append("\(path): \(instance.typeName) is not \(names.joined(separator: " or "))")
            }
        }
        if let options = schema["enum"]?.arrayValue, !options.contains(where: { Self.equal($0, instance) }) {
            errors.append("\(path): \(instance.serialized()) is not one of \(JSONValue.array(options).serialized())")
        }
        if let constant = schema["const"], !Self.equal(constant, instance) {
            errors.append("\(path): \(instance.serialized()) is not \(constant.serialized())")
        }
        if let minimum = schema["minimum"]?.numberValue, let number = instance.numberValue,
            number.doubleValue < minimum.doubleValue
        {
            errors.append("\(path): \(number) is less than \(minimum)")
        }
        if case .object(let object) = instance {
            for key in schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where object[key] == nil {
                errors.append("\(path): required key \(key) is missing")
            }
            let properties = schema["properties"]?.objectValue ?? JSONObject()
            for (key, value) in object {
                if let property = properties[key] {
                    check(value, against: property, at: "\(path).\(key)", errors: &errors, depth: depth + 1)
                } else if let additional = schema["additionalProperties"] {
                    if case .bool(false) = additional {
                        errors.append("\(path): key \(key) is not allowed")
                    } else {
                        check(value, against: additional, at: "\(path).\(key)", errors: &errors, depth: depth + 1)
                    }
                }
            }
        }
        if case .array(let elements) = instance, let least = schema["minItems"]?.numberValue?.intValue,
            elements.count < least
        {
            errors.append("\(path): \(elements.count) items, fewer than \(least)")
        }
        if case .array(let elements) = instance, let items = schema["items"] {
            for (index, element) in elements.enumerated() {
                check(element, against: items, at: "\(path)[\(index)]", errors: &errors, depth: depth + 1)
            }
        }
    }

    static func matches(_ value: JSONValue, type: String) -> Bool {
        switch (type, value) {
        case ("null", .null), ("boolean", .bool), ("number", .number), ("string", .string), ("array", .array),
            ("object", .object):
            true
        case ("integer", .number(let number)):
            number.doubleValue.isFinite && number.doubleValue == number.doubleValue.rounded()
        default: false
        }
    }

    /// JSON Schema equality: numbers by value (`1` = `1.0`), objects regardless of key order.
    static func equal(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.number(let a), .number(let b)): a.doubleValue == b.doubleValue
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a.count == b.count && zip(a, b).allSatisfy { equal($0, $1) }
        case (.object(let a), .object(let b)):
            Set(a.keys) == Set(b.keys)
                && a.allSatisfy { member in b[member.key].map { equal(member.value, $0) } ?? false }
        default: false
        }
    }
}
