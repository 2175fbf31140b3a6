/// The stable finding codes of `pass audit`: what only a view over the whole fleet shows. People grep and suppress
/// them: never rename one. Each says its severity.
public enum PassAuditFindingCode {
    // MARK: pass.audit.*

    /// A signer certificate's `notAfter` is at or before "now" (`--at`): none of the passes it signed can be
    /// updated, and no new pass of its type can be signed with it. Error (the forecast is crossed: exit 1).
    public static let signerExpired = "pass.audit.signerExpired"
    /// A signer certificate expires within `--warn-expiry` (default 30 days) of "now": after that none of the
    /// passes it signed can be updated or issued. Warning (the forecast is crossed: exit 1).
    public static let signerExpiring = "pass.audit.signerExpiring"
    /// Passes whose `expirationDate` is before "now" (each also has `pass.json.expired`). Info.
    public static let passesExpired = "pass.audit.passesExpired"
    /// Passes with `voided: true`: Wallet shows them as void. Info.
    public static let passesVoided = "pass.audit.passesVoided"
    /// One `serialNumber` under one `passTypeIdentifier` in passes with different contents: Wallet keeps one
    /// pass per pair, so an update replaces the other pass. Error.
    public static let duplicateSerial = "pass.audit.duplicateSerial"
    /// Passes with different serial numbers share a barcode message: scanning one admits the other. Warning.
    public static let duplicateBarcode = "pass.audit.duplicateBarcode"
    /// Passes with different serial numbers share an `authenticationToken`: whoever holds one can fetch the
    /// others from the web service. Warning.
    public static let reusedToken = "pass.audit.reusedToken"
    /// Passes whose `webServiceURL` is not https: Wallet never calls it, so they never update (each also has
    /// `pass.json.webServiceUrl`). Warning.
    public static let insecureWebService = "pass.audit.insecureWebService"

    /// Every code above, for reports and tests.
    public static let all: [String] = [
        signerExpired, signerExpiring, passesExpired, passesVoided, duplicateSerial, duplicateBarcode, reusedToken,
        insecureWebService,
    ]
}
