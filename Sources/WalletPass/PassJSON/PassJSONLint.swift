import Findings
import Foundation
import StrictJSON

/// Rules E1–F7: pass.json structure and formats.
enum PassJSONLinter {
    static let styles = ["boardingPass", "coupon", "eventTicket", "generic", "storeCard"]
    private static let fieldLists = [
        "headerFields", "primaryFields", "secondaryFields", "auxiliaryFields", "backFields",
    ]
    private static let transitTypes: Set<String> = [
        "PKTransitTypeAir", "PKTransitTypeBoat", "PKTransitTypeBus", "PKTransitTypeGeneric", "PKTransitTypeTrain",
    ]
    private static let alignments: Set<String> = [
        "PKTextAlignmentLeft", "PKTextAlignmentCenter", "PKTextAlignmentRight", "PKTextAlignmentNatural",
    ]
    private static let dateStyles: Set<String> = [
        "PKDateStyleNone", "PKDateStyleShort", "PKDateStyleMedium", "PKDateStyleLong", "PKDateStyleFull",
    ]
    private static let numberStyles: Set<String> = [
        "PKNumberStyleDecimal", "PKNumberStylePercent", "PKNumberStyleScientific", "PKNumberStyleSpellOut",
    ]
    private static let barcodeFormats: Set<String> = [
        "PKBarcodeFormatQR", "PKBarcodeFormatPDF417", "PKBarcodeFormatAztec",
    ]

    struct Result {
        var findings: [Finding] = []
        var object: JSONObject?
        var summary: PassSummary?
    }

    static func lint(_ bytes: [UInt8], now: Date, limits: PassLimits) -> Result {
        var result = Result()
        let path = "pass.json"
        let document: (value: JSONValue, warnings: [JSONWarning])
        do {
            document = try JSON.parseDocument(
                bytes, options: JSONParseOptions(maxDepth: limits.maxJSONDepth, allowTrailingCommas: true))
        } catch {
            result.findings.append(
                .error(PassFindingCode.jsonInvalid, "pass.json is not valid JSON: \(error)", path: path))
            return result
        }
        for warning in document.warnings {
            switch warning.kind {
            case .byteOrderMark:
                result.findings.append(
                    .warning(PassFindingCode.jsonBOM, "pass.json starts with a UTF-8 byte order mark", path: path))
            case .trailingComma:
                result.findings.append(
                    .warning(
                        PassFindingCode.jsonTrailingComma,
                        "pass.json has a trailing comma (\(warning)); iOS accepts it",
                        path: path))
            case .duplicateKey:
                result.findings.append(.warning(PassFindingCode.jsonDuplicateKey, "pass.json: \(warning)", path: path))
            }
        }
        guard let object = document.value.objectValue else {
            result.findings.append(
                .error(
                    PassFindingCode.jsonNotObject, "pass.json is a JSON \(document.value.typeName), not an object",
                    path: path)
            )
            return result
        }
        result.object = object
        var lint = Lint(path: path, now: now)
        lint.checkTopLevel(object)
        let presentStyles = styles.filter { object[$0] != nil }
        lint.checkStyles(object, presentStyles)
        lint.checkFormats(object)
        result.findings += lint.findings
        result.summary = PassSummary(object: object, style: presentStyles.count == 1 ? presentStyles[0] : nil)
        return result
    }

    private struct Lint {
        let path: String
        let now: Date
        var findings: [Finding] = []

        mutating func error(_ code: String, _ message: String) { findings.append(.error(code, message, path: path)) }
        mutating func warning(_ code: String, _ message: String) {
            findings.append(.warning(code, message, path: path))
        }

        mutating func checkTopLevel(_ object: JSONObject) {
            for key in ["description", "organizationName", "passTypeIdentifier", "serialNumber", "teamIdentifier"] {
                guard let value = object[key] else {
                    error(PassFindingCode.jsonMissingKey, "pass.json lacks the required key \"\(key)\"")
                    continue
                }
                if value.stringValue?.isEmpty == true {
                    error(PassFindingCode.jsonWrongType, "\"\(key)\" is empty; it must be a non-empty string")
                } else if value.stringValue == nil {
                    error(
                        PassFindingCode.jsonWrongType, "\"\(key)\" must be a non-empty string, found \(value.typeName)")
                }
            }
            if let version = object["formatVersion"] {
                if version.numberValue?.intValue != 1 || version.numberValue?.isInteger != true {
                    error(
                        PassFindingCode.jsonFormatVersion,
                        "\"formatVersion\" must be the integer 1, found \(version.serialized())")
                }
            } else {
                error(PassFindingCode.jsonMissingKey, "pass.json lacks the required key \"formatVersion\"")
            }
        }

        mutating func checkStyles(_ object: JSONObject, _ present: [String]) {
            if present.isEmpty {
                error(
                    PassFindingCode.jsonNoStyle,
                    "pass.json has none of the style keys \(styles.joined(separator: ", "))")
            } else if present.count > 1 {
                error(
                    PassFindingCode.jsonMultipleStyles,
                    "pass.json has several style keys: \(present.joined(separator: ", "))")
            }
            var seenKeys: Set<String> = []
            for style in present {
                guard let structure = object[style]?.objectValue else {
                    error(PassFindingCode.jsonWrongType, "\"\(style)\" must be an object")
                    continue
                }
                if style == "boardingPass" {
                    let transit = structure["transitType"]?.stringValue
                    if transit == nil || !transitTypes.contains(transit!) {
                        error(
                            PassFindingCode.jsonTransitType,
                            transit.map { "boardingPass.transitType \"\($0)\" is not a PKTransitType" }
                                ?? "boardingPass requires transitType")
                    }
                }
                for list in fieldLists {
                    guard let value = structure[list] else { continue }
                    guard let fields = value.arrayValue else {
                        error(PassFindingCode.jsonWrongType, "\(style).\(list) must be an array")
                        continue
                    }
                    for (index, field) in fields.enumerated() {
                        checkField(field, at: "\(style).\(list)[\(index)]", seenKeys: &seenKeys)
                    }
                }
            }
        }

        mutating func checkField(_ field: JSONValue, at location: String, seenKeys: inout Set<String>) {
            guard let object = field.objectValue else {
                error(PassFindingCode.jsonFieldInvalid, "\(location) must be an object")
                return
            }
            if let key = object["key"]?.stringValue {
                if !seenKeys.insert(key).inserted {
                    error(
                        PassFindingCode.jsonFieldDuplicateKey,
                        "\(location): field key \"\(key)\" is used twice in the pass")
                }
            } else {
                error(PassFindingCode.jsonFieldInvalid, "\(location) lacks a string \"key\"")
            }
            let value = object["value"]
            switch value {
            case .string, .number: break
            case nil: error(PassFindingCode.jsonFieldInvalid, "\(location) lacks \"value\"")
            case let other?:
                error(
                    PassFindingCode.jsonFieldInvalid,
                    "\(location).value must be a string or number, found \(other.typeName)")
            }
            for (key, allowed) in [
                ("textAlignment", alignments), ("dateStyle", dateStyles), ("timeStyle", dateStyles),
                ("numberStyle", numberStyles),
            ] {
                guard let text = object[key] else { continue }
                if !allowed.contains(text.stringValue ?? "") {
                    warning(
                        PassFindingCode.jsonFieldEnum, "\(location).\(key) \(text.serialized()) is not a known value")
                }
            }
            if object["dateStyle"] != nil || object["timeStyle"] != nil, let text = value?.stringValue,
                W3CDate.parse(text) == nil
            {
                error(PassFindingCode.jsonDate, "\(location).value \"\(text)\" has a date style but is not a W3C date")
            }
        }

        mutating func checkFormats(_ object: JSONObject) {
            let webService = object["webServiceURL"]
            let token = object["authenticationToken"]
            if let webService {
                if let url = webService.stringValue {
                    if !url.lowercased().hasPrefix("https://") {
                        error(
                            PassFindingCode.jsonWebServiceURL,
                            "webServiceURL \(Redaction.redactURL(url)) must use https")
                    }
                } else {
                    error(PassFindingCode.jsonWrongType, "webServiceURL must be a string")
                }
                if token == nil {
                    error(PassFindingCode.jsonWebServicePair, "webServiceURL requires authenticationToken")
                }
            }
            if let token {
                // The token is a secret: report its length only.
                if let text = token.stringValue {
                    if text.utf8.count < 16 {
                        error(
                            PassFindingCode.jsonAuthenticationToken,
                            "authenticationToken has \(text.utf8.count) characters; at least 16 are required")
                    }
                } else {
                    error(PassFindingCode.jsonWrongType, "authenticationToken must be a string")
                }
                if webService == nil {
                    error(PassFindingCode.jsonWebServicePair, "authenticationToken requires webServiceURL")
                }
            }
            if object["appLaunchURL"] != nil {
                let ids = object["associatedStoreIdentifiers"]?.arrayValue
                if ids == nil || ids!.isEmpty || ids!.contains(where: { $0.numberValue == nil }) {
                    error(
                        PassFindingCode.jsonAppLaunchURL,
                        "appLaunchURL requires associatedStoreIdentifiers (an array of numbers)")
                }
            }
            if let barcode = object["barcode"] { checkBarcode(barcode, at: "barcode", allowCode128: false) }
            if let barcodes = object["barcodes"] {
                if let list = barcodes.arrayValue {
                    for (index, barcode) in list.enumerated() {
                        checkBarcode(barcode, at: "barcodes[\(index)]", allowCode128: true)
                    }
                } else {
                    error(PassFindingCode.jsonBarcode, "barcodes must be an array")
                }
            }
            for key in ["foregroundColor", "backgroundColor", "labelColor"] {
                guard let value = object[key] else { continue }
                if value.stringValue.flatMap(Self.rgb) == nil {
                    warning(
                        PassFindingCode.jsonColor,
                        "\(key) \(value.serialized()) is not rgb(r, g, b) with 0–255 components")
                }
            }
            for key in ["relevantDate", "expirationDate"] {
                guard let value = object[key] else { continue }
                guard let text = value.stringValue, let date = W3CDate.parse(text) else {
                    error(
                        PassFindingCode.jsonDate,
                        "\(key) \(value.serialized()) is not a W3C date (YYYY-MM-DDThh:mm[:ss]±hh:mm)"
                    )
                    continue
                }
                if key == "expirationDate", date < now {
                    warning(
                        PassFindingCode.jsonExpired,
                        "expirationDate \(text) is in the past: Wallet shows the pass as expired")
                }
            }
            if let nfc = object["nfc"] {
                if let message = nfc["message"]?.stringValue {
                    if message.utf8.count > 64 {
                        error(PassFindingCode.jsonNFC, "nfc.message is \(message.utf8.count) bytes; the limit is 64")
                    }
                } else {
                    error(PassFindingCode.jsonNFC, "nfc must be an object with a string \"message\"")
                }
            }
            if let locations = object["locations"] {
                for (index, location) in (locations.arrayValue ?? [locations]).enumerated()
                where location["latitude"]?.numberValue == nil || location["longitude"]?.numberValue == nil {
                    error(PassFindingCode.jsonLocation, "locations[\(index)] needs numeric latitude and longitude")
                }
            }
            if let beacons = object["beacons"] {
                for (index, beacon) in (beacons.arrayValue ?? [beacons]).enumerated()
                where beacon["proximityUUID"]?.stringValue == nil {
                    error(PassFindingCode.jsonBeacon, "beacons[\(index)] needs a proximityUUID string")
                }
            }
        }

        mutating func checkBarcode(_ barcode: JSONValue, at location: String, allowCode128: Bool) {
            guard barcode.objectValue != nil else {
                error(PassFindingCode.jsonBarcode, "\(location) must be an object")
                return
            }
            let format = barcode["format"]?.stringValue ?? ""
            if format == "PKBarcodeFormatCode128" && !allowCode128 {
                // iOS 9+ reads the legacy key too and draws Code128; only older systems show no barcode.
                warning(
                    PassFindingCode.jsonBarcodeCode128,
                    "\(location).format is Code128, which the legacy \"barcode\" key supports only on iOS 9+; use \"barcodes\""
                )
            } else if !(barcodeFormats.contains(format) || format == "PKBarcodeFormatCode128") {
                error(PassFindingCode.jsonBarcode, "\(location).format \"\(format)\" is not a supported barcode format")
            }
            if barcode["message"]?.stringValue == nil {
                error(PassFindingCode.jsonBarcode, "\(location) lacks a string \"message\"")
            }
            if barcode["messageEncoding"]?.stringValue == nil {
                error(PassFindingCode.jsonBarcode, "\(location) lacks a string \"messageEncoding\"")
            }
        }

        static func rgb(_ text: String) -> (Int, Int, Int)? {
            let trimmed = text.filter { $0 != " " }
            guard trimmed.hasPrefix("rgb("), trimmed.hasSuffix(")") else { return nil }
            let parts = trimmed.dropFirst(4).dropLast().split(separator: ",", omittingEmptySubsequences: false)
            let values = parts.compactMap { Int($0) }.filter { (0...255).contains($0) }
            guard parts.count == 3, values.count == 3 else { return nil }
            return (values[0], values[1], values[2])
        }
    }
}

/// W3C dates as iOS accepts them: `YYYY-MM-DDThh:mm[:ss](Z|±hh:mm)`; fractions, `+0000` and `ZZ` are refused.
enum W3CDate {
    static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        func at(_ index: Int, _ character: Character) -> Bool {
            index < bytes.count && bytes[index] == character.asciiValue!
        }
        guard let year = number(0..<4), at(4, "-"), let month = number(5..<7), at(7, "-"), let day = number(8..<10),
            at(10, "T"), let hour = number(11..<13), at(13, ":"), let minute = number(14..<16)
        else { return nil }
        var index = 16
        var second = 0
        if at(index, ":") {
            guard let value = number(17..<19) else { return nil }
            second = value
            index = 19
        }
        var offset = 0
        if at(index, "Z"), index + 1 == bytes.count {
            offset = 0
        } else if at(index, "+") || at(index, "-"), bytes.count == index + 6, at(index + 3, ":"),
            let hours = number((index + 1)..<(index + 3)), let minutes = number((index + 4)..<(index + 6))
        {
            offset = (hours * 60 + minutes) * 60 * (at(index, "-") ? -1 : 1)
        } else {
            return nil
        }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), hour < 24, minute < 60,
            second < 61
        else { return nil }
        // timegm rather than Calendar: this runs for every date of every pass.
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts) - offset))
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
