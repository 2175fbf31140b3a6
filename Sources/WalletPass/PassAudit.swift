import Findings
import Foundation
import StrictJSON

/// The fleet view of `pass audit`: fed one verification at a time (in any order), it keeps per signer counts,
/// per code counts and what duplicates need — never the verifications themselves — and then reports.
///
/// ```swift
/// var audit = PassAudit()
/// for pass in verifications { audit.add(pass) }
/// let report = audit.report(now: Date(), warnExpiry: 30 * 86_400)
/// ```
public struct PassAudit: Sendable {
    /// Sources listed in a fleet finding before "and N more".
    static let examples = 3

    private var signers: [String: PassAuditSigner] = [:]
    private var signerOrder: [String] = []
    private var unsigned = 0
    private var passCount = 0
    private var invalidCount = 0
    private var codeCounts: [String: Int] = [:]
    private var expired = Group()
    private var voided = Group()
    private var insecure = Group()
    /// passTypeIdentifier + serialNumber → the first pass's digest and source, and the passes that differ.
    private var serials: [String: (sha256: Digest128, group: Group)] = [:]
    private var serialConflicts: [String] = []
    /// Barcode message digest → the first serial using it and the passes with other serials.
    private var barcodes: [Digest128: Keyed] = [:]
    private var sharedBarcodes: [Digest128] = []
    /// Token digest → the same.
    private var tokens: [Digest128: Keyed] = [:]
    private var sharedTokens: [Digest128] = []

    /// A count of passes with a few of their sources (the first kept without an array: most groups stay at one,
    /// and a fleet of 100,000 passes keeps one per pass).
    struct Group: Sendable {
        var count = 0
        var first: String?
        var more: [String] = []

        mutating func add(_ source: String) {
            count += 1
            if first == nil {
                first = source
            } else if more.count < PassAudit.examples - 1 {
                more.append(source)
            }
        }

        var listed: String {
            let sources = (first.map { [$0] } ?? []) + more
            return sources.joined(separator: ", ") + (count > sources.count ? " and \(count - sources.count) more" : "")
        }
    }

    /// Passes sharing one value: the first pass's serial and whether another serial uses it too.
    struct Keyed: Sendable {
        var firstIdentity: Int
        var shared = false
        var group = Group()
    }

    /// The first 128 bits of a lower-case hex SHA-256: a compact key (a collision among 100,000 passes has a chance
    /// of about 10⁻²⁹).
    struct Digest128: Hashable, Sendable {
        var high: UInt64
        var low: UInt64

        init(hex: String) {
            let utf8 = Array(hex.utf8.prefix(32))
            func half(_ part: ArraySlice<UInt8>) -> UInt64 {
                part.reduce(0) { value, digit in
                    let nibble = digit >= 97 ? digit - 87 : digit >= 65 ? digit - 55 : digit &- 48
                    return value << 4 | UInt64(nibble & 0xF)
                }
            }
            high = half(utf8.prefix(16))
            low = half(utf8.dropFirst(16))
        }
    }

    public init() {}

    /// Counts one input's findings (a bundle's own) without a pass.
    public mutating func addInputFindings(_ findings: [Finding]) {
        for finding in findings { codeCounts[finding.code, default: 0] += 1 }
    }

    /// Adds one pass.
    public mutating func add(_ pass: PassVerification) {
        passCount += 1
        if !pass.valid { invalidCount += 1 }
        addInputFindings(pass.findings)
        if let signer = pass.signer {
            let key = signer.issuer + "\u{0}" + signer.serialNumber
            if signers[key] == nil {
                signers[key] = PassAuditSigner(signer: signer)
                signerOrder.append(key)
            }
            signers[key]!.passes += 1
            if !pass.valid { signers[key]!.invalid += 1 }
        } else {
            unsigned += 1
        }
        if pass.findings.contains(where: { $0.code == PassFindingCode.jsonExpired }) { expired.add(pass.source) }
        if pass.findings.contains(where: { $0.code == PassFindingCode.jsonWebServiceURL }) { insecure.add(pass.source) }
        guard let facts = pass.facts, let summary = pass.summary else { return }
        if facts.voided { voided.add(pass.source) }
        guard let type = summary.passTypeIdentifier, let serial = summary.serialNumber else { return }
        let identity = type + "/" + serial
        let digest = Digest128(hex: facts.sha256)
        if var known = serials[identity] {
            if known.sha256 != digest {
                if known.group.count == 1 { serialConflicts.append(identity) }
                known.group.add(pass.source)
            }
            serials[identity] = known
        } else {
            var group = Group()
            group.add(pass.source)
            serials[identity] = (digest, group)
        }
        let identityHash = identity.hashValue
        for message in facts.barcodeDigests {
            Self.share(Digest128(hex: message), identityHash, pass.source, &barcodes, &sharedBarcodes)
        }
        if let token = facts.authenticationTokenDigest {
            Self.share(Digest128(hex: token), identityHash, pass.source, &tokens, &sharedTokens)
        }
    }

    private static func share(
        _ key: Digest128, _ identity: Int, _ source: String, _ table: inout [Digest128: Keyed],
        _ shared: inout [Digest128]
    ) {
        guard var entry = table[key] else {
            var entry = Keyed(firstIdentity: identity)
            entry.group.add(source)
            table[key] = entry
            return
        }
        guard identity != entry.firstIdentity else { return }
        if !entry.shared {
            entry.shared = true
            shared.append(key)
        }
        entry.group.add(source)
        table[key] = entry
    }

    /// The report at `now`: signers forecast against `warnExpiry` seconds, duplicates, counts.
    public func report(now: Date, warnExpiry: TimeInterval) -> PassAuditReport {
        var findings: [Finding] = []
        let signerList = signerOrder.map { signers[$0]! }
        for signer in signerList {
            guard let notAfter = signer.signer.notAfter else { continue }
            let name = "certificate \(quoted(signer.signer.subject)) (serial \(signer.signer.serialNumber))"
            let passes = "\(grouped(signer.passes)) pass\(signer.passes == 1 ? "" : "es")"
            let path = signer.signer.passTypeIdentifier
            if notAfter <= now {
                findings.append(
                    .error(
                        PassAuditFindingCode.signerExpired,
                        "\(name) signs \(passes) and expired on \(formatDate(notAfter)); no pass of this type can be "
                            + "updated or issued until a new certificate signs them", path: path))
            } else if notAfter.timeIntervalSince(now) <= warnExpiry {
                let days = Int((notAfter.timeIntervalSince(now) / 86_400).rounded(.down))
                let when = days == 0 ? "within a day" : "in \(days) day\(days == 1 ? "" : "s")"
                findings.append(
                    .warning(
                        PassAuditFindingCode.signerExpiring,
                        "\(name) signs \(passes) and expires \(when) (\(formatDate(notAfter))); after that no pass of "
                            + "this type can be updated or issued", path: path))
            }
        }
        for identity in serialConflicts {
            let group = serials[identity]!.group
            findings.append(
                .error(
                    PassAuditFindingCode.duplicateSerial,
                    "\(group.count) passes with different contents share serial \(identity): \(group.listed)",
                    path: identity))
        }
        for key in sharedBarcodes {
            let group = barcodes[key]!.group
            findings.append(
                .warning(
                    PassAuditFindingCode.duplicateBarcode,
                    "\(group.count) passes with different serial numbers share one barcode message: \(group.listed)"))
        }
        for key in sharedTokens {
            let group = tokens[key]!.group
            findings.append(
                .warning(
                    PassAuditFindingCode.reusedToken,
                    "\(group.count) passes with different serial numbers share one authenticationToken (not shown): "
                        + group.listed))
        }
        func tally(_ group: Group, _ severity: Severity, _ code: String, _ what: String) {
            guard group.count > 0 else { return }
            let passes = group.count == 1 ? "1 pass" : "\(grouped(group.count)) passes"
            findings.append(Finding(severity, code, "\(passes) \(what): \(group.listed)"))
        }
        tally(expired, .info, PassAuditFindingCode.passesExpired, "expired before \(formatDate(now))")
        tally(voided, .info, PassAuditFindingCode.passesVoided, "voided")
        tally(insecure, .warning, PassAuditFindingCode.insecureWebService, "with a webServiceURL that is not https")
        return PassAuditReport(
            now: now, warnExpiry: warnExpiry, signers: signerList, unsigned: unsigned, passes: passCount,
            invalid: invalidCount, findings: findings, codeCounts: codeCounts)
    }
}

/// One signer certificate of the fleet and how many passes it signed.
public struct PassAuditSigner: Sendable, Hashable {
    /// The certificate as the verifier read it.
    public var signer: PassSigner
    /// Passes it signed.
    public var passes = 0
    /// Of those, the invalid ones.
    public var invalid = 0

    /// `{"subject","teamIdentifier","passTypeIdentifier","serialNumber","issuingGeneration","notAfter","passes","invalid"}`.
    public var json: JSONValue {
        .object(
            JSONObject([
                ("subject", .string(signer.subject)), ("teamIdentifier", .optional(signer.teamIdentifier)),
                ("passTypeIdentifier", .optional(signer.passTypeIdentifier)),
                ("serialNumber", .string(signer.serialNumber)),
                ("issuingGeneration", .optional(signer.issuingGeneration)),
                ("notAfter", .optional(signer.notAfter.map(formatDate))), ("passes", .int(passes)),
                ("invalid", .int(invalid)),
            ]))
    }
}

/// What `pass audit` prints after the passes.
public struct PassAuditReport: Sendable, Hashable {
    /// "Now" of the audit (`--at`).
    public var now: Date
    /// The forecast window in seconds (`--warn-expiry`).
    public var warnExpiry: TimeInterval
    /// Signer certificates in the order first seen.
    public var signers: [PassAuditSigner]
    /// Passes without a readable signer certificate.
    public var unsigned: Int
    /// Passes audited (bundles count their passes).
    public var passes: Int
    /// Of those, the invalid ones.
    public var invalid: Int
    /// The fleet findings (`pass.audit.*`).
    public var findings: [Finding]
    /// Findings per code over every pass and bundle, and the fleet findings.
    public var codeCounts: [String: Int]

    /// Whether a signer expired or expires within the window.
    public var forecastCrossed: Bool {
        findings.contains {
            $0.code == PassAuditFindingCode.signerExpired || $0.code == PassAuditFindingCode.signerExpiring
        }
    }

    /// Every code counted, fleet findings included, sorted by code.
    public var allCodeCounts: [(code: String, count: Int)] {
        var counts = codeCounts
        for finding in findings { counts[finding.code, default: 0] += 1 }
        return counts.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// `{"at","warnExpiryDays","passes","valid","invalid","signers":[…],"unsigned","findings":[…],"codes":{…}}`.
    public var json: JSONValue {
        .object(
            JSONObject([
                ("at", .string(formatDate(now))), ("warnExpiryDays", .int(Int(warnExpiry / 86_400))),
                ("passes", .int(passes)), ("valid", .int(passes - invalid)), ("invalid", .int(invalid)),
                ("signers", .array(signers.map(\.json))), ("unsigned", .int(unsigned)),
                ("findings", .array(findings.map(\.json))),
                ("codes", .object(JSONObject(allCodeCounts.map { ($0.code, .int($0.count)) }))),
            ]))
    }

    /// The text after the passes: signers, fleet findings, counts by code and a summary line.
    public var text: String {
        var lines = ["signers (\(signers.count)):"]
        for entry in signers {
            let signer = entry.signer
            var line =
                "  \(signer.passTypeIdentifier ?? "?") team \(signer.teamIdentifier ?? "?"), serial \(signer.serialNumber)"
            if let generation = signer.issuingGeneration { line += ", WWDR \(generation)" }
            if let notAfter = signer.notAfter { line += ", expires \(formatDate(notAfter))" }
            line += ": \(grouped(entry.passes)) pass\(entry.passes == 1 ? "" : "es")"
            if entry.invalid > 0 { line += " (\(grouped(entry.invalid)) invalid)" }
            lines += [line, "    \(signer.subject)"]
        }
        if unsigned > 0 {
            lines.append("  no signer certificate: \(grouped(unsigned)) pass\(unsigned == 1 ? "" : "es")")
        }
        lines.append("fleet findings (\(findings.count)):")
        for finding in findings {
            let place = finding.path.map { " [\(Redaction.redactText($0))]" } ?? ""
            lines.append(
                "  \(finding.severity.rawValue) \(finding.code)\(place): \(Redaction.redactText(finding.message))")
        }
        let counts = allCodeCounts
        lines.append("findings by code (\(counts.count)):")
        let width = counts.map { grouped($0.count).count }.max() ?? 1
        for (code, count) in counts {
            let text = grouped(count)
            lines.append("  \(String(repeating: " ", count: width - text.count))\(text)  \(code)")
        }
        lines.append(
            "audit: \(grouped(passes)) pass\(passes == 1 ? "" : "es"): \(grouped(passes - invalid)) valid, "
                + "\(grouped(invalid)) invalid; \(signers.count) signer\(signers.count == 1 ? "" : "s")"
                + (forecastCrossed ? "; expiry forecast crossed" : ""))
        return lines.joined(separator: "\n")
    }
}

/// `12034` as `12,034`.
func grouped(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var out = ""
    for (index, digit) in digits.enumerated() {
        if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
        out.append(digit)
    }
    return (value < 0 ? "-" : "") + out
}
