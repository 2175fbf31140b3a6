internal import COpenSSL
import Findings
import Foundation
import StrictJSON

/// Verifies Apple Wallet passes (`.pkpass`) against every rule A–H of `docs/wallet-pass.md`.
///
/// Build one per run: it loads and parses the pinned Apple certificates (plus `--trust` files) once and
/// shares them across passes; `verify` is safe to call from several threads at once.
///
/// ```swift
/// let verifier = try PassVerifier(extraTrustFiles: ["my-root.pem"], now: nil)
/// let result = verifier.verify(fileAt: "boarding.pkpass")
/// print(result.valid, result.findings)
/// ```
public final class PassVerifier: Sendable {
    let anchors: TrustAnchors
    private let digester = Digester()
    private let certificateCache = CertificateCache()
    private let oids: AppleOIDs
    private let fixedNow: Date?
    /// Verdicts kept between runs (``PassVerdictCache``); `nil` verifies every pass from its bytes.
    private let cache: PassVerdictCache?
    /// What besides the bytes a verdict depends on: the anchors and intermediates, the limits and
    /// ``TimelessVerdict/version``, digested once.
    private let verdictSalt: [UInt8]
    /// The limits applied to every pass.
    public let limits: PassLimits

    /// - Parameters:
    ///   - extraTrustFiles: PEM (one or several certificates) or DER files; self-signed ones become anchors,
    ///     the others known intermediates, next to the bundled Apple Root CA and WWDR G1–G8.
    ///   - now: evaluates "expired since" and pass.json dates at this time instead of the clock (`--at`).
    ///   - limits: archive and JSON limits.
    /// - Throws: ``PassVerifierError`` when a trust file cannot be read or holds no certificate.
    public convenience init(
        extraTrustFiles: [String] = [], now: Date? = nil, limits: PassLimits = PassLimits(),
        cache: PassVerdictCache? = nil
    ) throws {
        var certificates: [[UInt8]] = []
        for path in extraTrustFiles {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw PassVerifierError.trustFile(path: path, reason: "cannot be read")
            }
            guard !Certificate.parseAll([UInt8](data)).isEmpty else {
                throw PassVerifierError.trustFile(path: path, reason: "holds no PEM or DER certificate")
            }
            certificates.append([UInt8](data))
        }
        try self.init(extraTrustCertificates: certificates, now: now, limits: limits, cache: cache)
    }

    /// Like ``init(extraTrustFiles:now:limits:cache:)`` with the certificates' bytes (PEM or DER) instead of paths.
    /// - Parameter cache: where verdicts are kept between runs, keyed by the SHA-256 of the pass bytes, the trust
    ///   anchors, the limits and the verifier's version (never by path); time-dependent findings are decided
    ///   afresh against `now` on every verification.
    /// - Throws: ``PassVerifierError`` when an element holds no certificate.
    public init(
        extraTrustCertificates: [[UInt8]], now: Date? = nil, limits: PassLimits = PassLimits(),
        cache: PassVerdictCache? = nil
    ) throws {
        var certificates = try TrustAnchors.bundledCertificates()
        for (index, bytes) in extraTrustCertificates.enumerated() {
            let parsed = Certificate.parseAll(bytes)
            guard !parsed.isEmpty else {
                throw PassVerifierError.trustFile(path: "#\(index + 1)", reason: "holds no PEM or DER certificate")
            }
            certificates += parsed
        }
        self.anchors = try TrustAnchors(certificates: certificates)
        self.oids = try AppleOIDs()
        self.fixedNow = now
        self.limits = limits
        self.cache = cache
        let salt = certificates.map(\.sha256Fingerprint).sorted() + ["\(limits)", "v\(TimelessVerdict.version)"]
        self.verdictSalt = Array(salt.joined(separator: "\n").utf8)
    }

    /// Verifies the pass file at `path`. A file that cannot be read is reported as a finding.
    public func verify(fileAt path: String) -> PassVerification {
        guard let bytes = readFile(path) else {
            return PassVerification(
                source: path, findings: [.error(PassFindingCode.fileUnreadable, "cannot read \(path)")], signer: nil,
                summary: nil)
        }
        return verify(bytes: bytes, source: path)
    }

    /// Verifies a pass held in memory.
    /// - Parameters:
    ///   - bytes: the `.pkpass` archive.
    ///   - source: a path or URL for the report (URLs are redacted here).
    public func verify(bytes: [UInt8], source: String) -> PassVerification {
        verdict(bytes).at(fixedNow ?? Date(), source: Redaction.redactURL(source))
    }

    /// The cache key of a pass: SHA-256 over the bytes' SHA-256 and the verifier's salt, lower-case hex.
    func verdictKey(_ bytes: [UInt8]) -> String {
        Hex.encode(digester.sha256(digester.sha256(bytes) + verdictSalt))
    }

    /// The pass's time-independent verdict: from the cache when it holds one, else computed (and saved).
    private func verdict(_ bytes: [UInt8]) -> TimelessVerdict {
        guard let cache else { return timeless(bytes) }
        let key = verdictKey(bytes)
        if let record = cache.load(key), let verdict = TimelessVerdict(record: record) { return verdict }
        let verdict = timeless(bytes)
        cache.save(key, verdict.record)
        return verdict
    }

    /// Runs every check at the end of time, so that both time-dependent findings are present when they can be,
    /// with the dates that decide them.
    private func timeless(_ bytes: [UInt8]) -> TimelessVerdict {
        var run = Run(verification: PassVerification(source: "", findings: [], signer: nil, summary: nil))
        run.verification.findings = check(bytes, into: &run, now: .distantFuture)
        let verification = run.verification
        return TimelessVerdict(
            findings: verification.findings, signer: verification.signer, summary: verification.summary,
            facts: verification.facts, certificateExpiry: verification.signer?.notAfter,
            passExpiry: verification.summary?.expirationDate.flatMap(W3CDate.parse))
    }

    /// Lists the files (sizes, SHA-1), the embedded certificates and the pass.json summary, with the verification.
    public func inspect(fileAt path: String) -> PassInspection {
        guard let bytes = readFile(path) else {
            let verification = PassVerification(
                source: path, findings: [.error(PassFindingCode.fileUnreadable, "cannot read \(path)")], signer: nil,
                summary: nil)
            return PassInspection(files: [], certificates: [], verification: verification)
        }
        return inspect(bytes: bytes, source: path)
    }

    /// ``inspect(fileAt:)`` for a pass held in memory.
    public func inspect(bytes: [UInt8], source: String) -> PassInspection {
        let run = run(bytes: bytes, source: source)
        let files = run.entries.map {
            PassFile(
                name: $0.name, size: $0.data.count, compressedSize: $0.compressedSize,
                sha1: Hex.encode(digester.sha1($0.data)))
        }
        let certificates = run.signature?.embedded.map { certificate in
            PassCertificate(
                subject: certificate.subjectText, issuer: certificate.issuerText, serialNumber: certificate.serialHex,
                notBefore: certificate.notBefore, notAfter: certificate.notAfter,
                sha256Fingerprint: certificate.sha256Fingerprint,
                wwdrGeneration: TrustAnchors.generation(of: certificate),
                isSigner: run.signature?.signer.map { $0.isSame(as: certificate) } ?? false)
        }
        return PassInspection(files: files, certificates: certificates ?? [], verification: run.verification)
    }

    /// A6: the MIME type a pass (or, with `bundle`, a `.pkpasses` bundle) should be served with; `nil` when
    /// `contentType` is right.
    public static func checkContentType(_ contentType: String?, bundle: Bool = false) -> Finding? {
        let expected = bundle ? "application/vnd.apple.pkpasses" : "application/vnd.apple.pkpass"
        let type = contentType?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard type != expected else { return nil }
        return .warning(
            PassFindingCode.contentType,
            "served as \(type ?? "no content type"); Safari and Mail only offer \(bundle ? "bundles" : "passes") "
                + "served as \(expected)")
    }

    // MARK: - the engine

    private struct Run {
        var verification: PassVerification
        var entries: [ArchiveEntry] = []
        var signature: SignatureCheck?
    }

    /// The file's bytes, at most one past the archive limit; `nil` when it cannot be read.
    func readFile(_ path: String) -> [UInt8]? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        // Read one byte past the limit: enough to say "too large" without loading a huge file.
        do {
            // `nil` from read means end of file: an empty file, which the archive reader reports as not a ZIP.
            return [UInt8](try handle.read(upToCount: limits.maxArchiveBytes + 1) ?? Data())
        } catch {
            return nil  // a directory, a permission problem, an I/O error
        }
    }

    private func run(bytes: [UInt8], source: String) -> Run {
        var run = Run(
            verification: PassVerification(source: Redaction.redactURL(source), findings: [], signer: nil, summary: nil)
        )
        run.verification.findings = check(bytes, into: &run, now: fixedNow ?? Date())
        return run
    }

    /// Runs the stages in order and returns their findings; fills `run` with what later views need.
    private func check(_ bytes: [UInt8], into run: inout Run, now: Date) -> [Finding] {
        var findings: [Finding] = []

        let archive = PassArchiveReader.read(bytes, limits: limits)
        findings += archive.findings
        guard archive.readable else { return findings }
        run.entries = archive.entries
        func root(_ name: String) -> [UInt8]? { archive.entries.first { $0.name == name }?.data }
        let nested = Set(
            archive.findings.filter { $0.code == PassFindingCode.archiveNotAtRoot }.compactMap {
                $0.path?.split(separator: "/").last.map(String.init)
            })

        // pass.json first: the certificate rules compare against it.
        var passJSON: PassJSONLinter.Result?
        if let bytes = root("pass.json") {
            let lint = PassJSONLinter.lint(bytes, now: now, limits: limits)
            passJSON = lint
            run.verification.summary = lint.summary
            if let object = lint.object { run.verification.facts = facts(object, bytes: bytes) }
        } else if !nested.contains("pass.json") {
            findings.append(
                .error(PassFindingCode.jsonMissing, "the archive has no pass.json at its root", path: "pass.json"))
        }

        let manifest = root("manifest.json")
        if let manifest {
            findings += ManifestChecker.check(
                manifest: manifest, entries: archive.entries, digester: digester, limits: limits)
        } else if !nested.contains("manifest.json") {
            findings.append(
                .error(
                    PassFindingCode.manifestMissing, "the archive has no manifest.json: the pass is unsigned",
                    path: "manifest.json"))
        }

        if let signature = root("signature") {
            let check = SignatureChecker.check(
                signature: signature, manifest: manifest, cache: certificateCache)
            findings += check.findings
            run.signature = check
            if let signer = check.signer {
                let policy = CertificatePolicy(anchors: anchors, oids: oids, signer: signer, signature: check)
                findings += policy.check(passJSON: passJSON?.object, now: now)
                run.verification.signer = policy.signerDetails
            }
        } else if !nested.contains("signature") {
            findings.append(
                .error(
                    PassFindingCode.signatureMissing, "the archive has no signature file: the pass is unsigned",
                    path: "signature"))
        }

        if let passJSON { findings += passJSON.findings }
        findings += ImageChecker.check(entries: archive.entries, style: passJSON?.summary?.style, limits: limits)
        findings += StringsFile.check(entries: archive.entries)
        return findings
    }
}

extension PassVerifier {
    /// The audit's view of pass.json and the archive bytes.
    fileprivate func facts(_ object: JSONObject, bytes: [UInt8]) -> PassFacts {
        func digest(_ text: String) -> String { Hex.encode(digester.sha256(Array(text.utf8))) }
        var messages: [String] = []
        let barcodes = (object["barcodes"]?.arrayValue ?? []) + (object["barcode"].map { [$0] } ?? [])
        for barcode in barcodes {
            if let message = barcode["message"]?.stringValue, !messages.contains(message) { messages.append(message) }
        }
        return PassFacts(
            sha256: Hex.encode(digester.sha256(bytes)), voided: object["voided"]?.boolValue == true,
            webServiceURL: object["webServiceURL"]?.stringValue,
            authenticationTokenDigest: object["authenticationToken"]?.stringValue.map(digest),
            barcodeDigests: messages.map(digest))
    }
}

/// The Apple certificate extension OIDs as OpenSSL objects, created once per verifier.
final class AppleOIDs: @unchecked Sendable {
    // @unchecked Sendable: the ASN1_OBJECTs are created in init and only read (X509_get_ext_by_OBJ) afterwards.
    /// 1.2.840.113635.100.6.1.16: the Pass Type ID the certificate was issued for (DER UTF8String).
    let passTypeIdentifier: OpaquePointer
    /// 1.2.840.113635.100.6.1.26: present on NFC-enabled ("enhanced") pass certificates.
    let nfcPassType: OpaquePointer

    init() throws(PassVerifierError) {
        guard let passType = OBJ_txt2obj("1.2.840.113635.100.6.1.16", 1) else { throw .openSSL("OBJ_txt2obj failed") }
        guard let nfc = OBJ_txt2obj("1.2.840.113635.100.6.1.26", 1) else {
            ASN1_OBJECT_free(passType)
            throw .openSSL("OBJ_txt2obj failed")
        }
        self.passTypeIdentifier = passType
        self.nfcPassType = nfc
    }

    deinit {
        ASN1_OBJECT_free(passTypeIdentifier)
        ASN1_OBJECT_free(nfcPassType)
    }
}
