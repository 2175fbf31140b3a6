/// The stable finding codes WalletPass emits (rules A–H of docs/wallet-pass.md). People grep and suppress
/// them: never rename one. Each says its rule and severity.
public enum PassFindingCode {
    // MARK: pass.archive.*

    /// The bytes are not a ZIP archive (no end-of-central-directory record and no `PK` start). Error (A1).
    public static let archiveNotZip = "pass.archive.notZip"
    /// The bytes start like a ZIP but the end-of-central-directory record is missing (cut short). Error (A1).
    public static let archiveTruncated = "pass.archive.truncated"
    /// libzip cannot read the central directory, or the ZIP headers contradict each other. Error (A1).
    public static let archiveCorrupt = "pass.archive.corrupt"
    /// libzip cannot open the archive or an entry header for another reason (its message is quoted). Error (A1).
    public static let archiveUnreadable = "pass.archive.unreadable"
    /// An entry does not inflate (bad deflate data, CRC mismatch). Error (A1).
    public static let archiveCorruptEntry = "pass.archive.corruptEntry"
    /// An entry inflates to a different size than its header declares (reading stops one byte past it). Error (A5).
    public static let archiveSizeMismatch = "pass.archive.sizeMismatch"
    /// Bytes precede the first ZIP entry (a self-extractor stub or junk). Warning (A1).
    public static let archivePrefixed = "pass.archive.prefixed"
    /// The archive is larger than `PassLimits.maxArchiveBytes` (10 MiB). Error (A5).
    public static let archiveTooLarge = "pass.archive.tooLarge"
    /// The archive declares more than `PassLimits.maxEntries` (256) entries; checked before libzip parses it. Error (A5).
    public static let archiveTooManyEntries = "pass.archive.tooManyEntries"
    /// An entry declares more than `PassLimits.maxEntryBytes` (4 MiB) uncompressed. Error (A5).
    public static let archiveEntryTooLarge = "pass.archive.entryTooLarge"
    /// An entry over 1 MiB declares more than 100× its compressed size (zip bomb). Error (A5).
    public static let archiveCompressionRatio = "pass.archive.compressionRatio"
    /// The entries declare more than `PassLimits.maxTotalBytes` (32 MiB) in all. Error (A5).
    public static let archiveTotalTooLarge = "pass.archive.totalTooLarge"
    /// An entry name is empty, absolute, has `..`, a backslash, a drive letter or control characters. Error (A4).
    public static let archiveUnsafePath = "pass.archive.unsafePath"
    /// Two entries have exactly the same name. Error (A4).
    public static let archiveDuplicateName = "pass.archive.duplicateName"
    /// Two entry names differ only in case (they clash on case-insensitive file systems). Warning (A4).
    public static let archiveCaseDuplicate = "pass.archive.caseDuplicate"
    /// An entry is a Unix symbolic link. Error (A4).
    public static let archiveSymlink = "pass.archive.symlink"
    /// An entry is encrypted. Error (A4).
    public static let archiveEncrypted = "pass.archive.encrypted"
    /// An entry is neither stored nor deflated. Error (A3).
    public static let archiveUnsupportedCompression = "pass.archive.unsupportedCompression"
    /// `pass.json`, `manifest.json` or `signature` sits in a folder instead of the archive root. Error (A2).
    public static let archiveNotAtRoot = "pass.archive.notAtRoot"
    /// Operating-system clutter: `__MACOSX/`, `._*`, `.DS_Store`, `Thumbs.db` (unlisted, it also breaks the manifest). Warning (A7).
    public static let archiveJunk = "pass.archive.junk"

    // MARK: pass.file.*

    /// The pass file cannot be read (missing, a directory, no permission). Error (-).
    public static let fileUnreadable = "pass.file.unreadable"

    // MARK: pass.contentType.*

    /// A pass (bundle) is served with another MIME type than `application/vnd.apple.pkpass(es)`. Warning (A6).
    public static let contentType = "pass.contentType"

    // MARK: pass.bundle.*

    /// A `.pkpasses` bundle holds no `.pkpass`. Error (A6).
    public static let bundleEmpty = "pass.bundle.empty"
    /// A `.pkpasses` bundle holds more than 10 passes. Error (A6).
    public static let bundleTooManyPasses = "pass.bundle.tooManyPasses"
    /// A `.pkpasses` bundle holds a file that is not a `.pkpass`. Warning (A6).
    public static let bundleExtraFile = "pass.bundle.extraFile"
    /// A `.pkpasses` bundle holds another bundle (a `.pkpasses` entry, or a `.pkpass` entry that is itself a zip
    /// of passes): Wallet adds passes, not bundles, from a bundle. Error (A6).
    public static let bundleNested = "pass.bundle.nested"
    /// A `.pkpasses` bundle is larger than `PassLimits.maxBundleBytes` (32 MiB; the product's own limit, ten
    /// passes of a few MiB each). Error (A6).
    public static let bundleTooLarge = "pass.bundle.tooLarge"

    // MARK: pass.manifest.*

    /// No `manifest.json` at the root: the pass is unsigned. Error (B2).
    public static let manifestMissing = "pass.manifest.missing"
    /// `manifest.json` is not valid JSON (position quoted). Error (B1).
    public static let manifestInvalidJSON = "pass.manifest.invalidJson"
    /// `manifest.json` parses with a warning (BOM, duplicate key, trailing comma). Warning (B1).
    public static let manifestJSONWarning = "pass.manifest.jsonWarning"
    /// `manifest.json` is not a JSON object. Error (B1).
    public static let manifestNotObject = "pass.manifest.notObject"
    /// `manifest.json` lists `signature` or itself. Error (B3).
    public static let manifestListsExcluded = "pass.manifest.listsExcluded"
    /// A manifest value is not 40 hex digits (a SHA-256 is named as such). Error (B3).
    public static let manifestInvalidHash = "pass.manifest.invalidHash"
    /// A manifest hash is upper-case hex. Warning (B1).
    public static let manifestUppercaseHash = "pass.manifest.uppercaseHash"
    /// `manifest.json` lists a file the archive lacks. Error (B2).
    public static let manifestMissingFile = "pass.manifest.missingFile"
    /// A file's SHA-1 differs from `manifest.json` (changed after signing). Error (B2).
    public static let manifestHashMismatch = "pass.manifest.hashMismatch"
    /// A file is not listed in `manifest.json`. Error (B2).
    public static let manifestUnlistedFile = "pass.manifest.unlistedFile"

    // MARK: pass.signature.*

    /// No `signature` at the root: the pass is unsigned. Error (C1).
    public static let signatureMissing = "pass.signature.missing"
    /// `signature` is not DER/BER CMS (PKCS#7). Error (C1).
    public static let signatureUnparseable = "pass.signature.unparseable"
    /// `signature` is CMS but not SignedData. Error (C1).
    public static let signatureNotSignedData = "pass.signature.notSignedData"
    /// The SignedData embeds a byte-identical copy of `manifest.json` instead of being detached. Warning (C1).
    public static let signatureNotDetached = "pass.signature.notDetached"
    /// The signature covers other bytes than this `manifest.json` (message digest mismatch, or a different embedded copy). Error (C1).
    public static let signatureManifestMismatch = "pass.signature.manifestMismatch"
    /// The signature value does not verify with the signer's key. Error (C1).
    public static let signatureInvalid = "pass.signature.invalid"
    /// The SignedData has no SignerInfo. Error (C4).
    public static let signatureNoSigner = "pass.signature.noSigner"
    /// The SignedData has more than one SignerInfo (the first is checked). Warning (C6).
    public static let signatureMultipleSigners = "pass.signature.multipleSigners"
    /// No embedded certificate matches the SignerInfo ("signer certificate not found"). Error (C5).
    public static let signatureSignerNotFound = "pass.signature.signerNotFound"
    /// The SignerInfo has no (readable) `signingTime` signed attribute. Error (C2).
    public static let signatureNoSigningTime = "pass.signature.noSigningTime"
    /// The digest is SHA-224/384/512 rather than SHA-1 or SHA-256. Warning (C3).
    public static let signatureUnusualDigest = "pass.signature.unusualDigest"
    /// The digest is anything else (MD5, unknown). Error (C3).
    public static let signatureWeakDigest = "pass.signature.weakDigest"

    // MARK: pass.cert.*

    /// The signer certificate lacks extension 1.2.840.113635.100.6.1.16, or lists key usages without 1.2.840.113635.100.4.14. Error (D1/D5).
    public static let certNotPassType = "pass.cert.notPassType"
    /// Extension 1.2.840.113635.100.6.1.16 does not hold pass.json's `passTypeIdentifier`. Error (D2).
    public static let certExtensionMismatch = "pass.cert.extensionMismatch"
    /// The certificate's UID is not pass.json's `passTypeIdentifier`. Error (D2).
    public static let certUIDMismatch = "pass.cert.uidMismatch"
    /// The certificate's CN is not `Pass Type ID[ with NFC]: <passTypeIdentifier>`. Error (D1).
    public static let certSubjectMismatch = "pass.cert.subjectMismatch"
    /// The certificate's OU is not pass.json's `teamIdentifier`. Error (D3).
    public static let certTeamMismatch = "pass.cert.teamMismatch"
    /// The signer does not chain to Apple Root CA or a `--trust` anchor through the pinned intermediates. Error (D4).
    public static let certUntrusted = "pass.cert.untrusted"
    /// Chain building failed for another reason (OpenSSL's reason quoted). Error (D4).
    public static let certChainInvalid = "pass.cert.chainInvalid"
    /// A chain certificate had expired at `signingTime`. Error (D6).
    public static let certExpiredAtSigning = "pass.cert.expiredAtSigning"
    /// A chain certificate was not yet valid at `signingTime`. Error (D6).
    public static let certNotYetValidAtSigning = "pass.cert.notYetValidAtSigning"
    /// The signer certificate was valid when signed but has expired by now (updates need re-signing). Warning (D6).
    public static let certExpiredSince = "pass.cert.expiredSince"
    /// The embedded intermediate did not issue the signer; the message names the one needed (e.g. WWDR G4). Warning (D7).
    public static let certWrongIntermediate = "pass.cert.wrongIntermediate"
    /// The signature embeds no intermediate; the message names the one needed. Warning (D7).
    public static let certIntermediateMissing = "pass.cert.intermediateMissing"
    /// pass.json has `nfc` but the certificate is not NFC-enabled. Error (D8).
    public static let certNFCNotEnabled = "pass.cert.nfcNotEnabled"

    // MARK: pass.json.*

    /// No `pass.json` at the root. Error (E2).
    public static let jsonMissing = "pass.json.missing"
    /// `pass.json` is not valid JSON (position quoted; too deep counts too). Error (E1).
    public static let jsonInvalid = "pass.json.invalid"
    /// `pass.json` starts with a UTF-8 byte order mark. Warning (E1).
    public static let jsonBOM = "pass.json.bom"
    /// `pass.json` has a trailing comma (iOS accepts it; Apple's own sample has one). Warning (E1).
    public static let jsonTrailingComma = "pass.json.trailingComma"
    /// `pass.json` repeats an object key (the last one wins). Warning (E1).
    public static let jsonDuplicateKey = "pass.json.duplicateKey"
    /// `pass.json` is not a JSON object. Error (E1).
    public static let jsonNotObject = "pass.json.notObject"
    /// A required key is missing (description, formatVersion, organizationName, passTypeIdentifier, serialNumber, teamIdentifier). Error (E2).
    public static let jsonMissingKey = "pass.json.missingKey"
    /// A key has the wrong JSON type (required strings, style dictionaries, field lists). Error (E2).
    public static let jsonWrongType = "pass.json.wrongType"
    /// `formatVersion` is not the integer 1. Error (E2).
    public static let jsonFormatVersion = "pass.json.formatVersion"
    /// None of the five style keys is present. Error (E3).
    public static let jsonNoStyle = "pass.json.noStyle"
    /// More than one style key is present. Error (E3).
    public static let jsonMultipleStyles = "pass.json.multipleStyles"
    /// `boardingPass` lacks a valid `transitType`. Error (E4).
    public static let jsonTransitType = "pass.json.transitType"
    /// A field is not an object or lacks `key` / a string-or-number `value`. Error (E5).
    public static let jsonFieldInvalid = "pass.json.fieldInvalid"
    /// Two fields of the pass share a `key`. Error (E5).
    public static let jsonFieldDuplicateKey = "pass.json.fieldDuplicateKey"
    /// A field's `textAlignment`, `dateStyle`, `timeStyle` or `numberStyle` is not a known value. Warning (E5).
    public static let jsonFieldEnum = "pass.json.fieldEnum"
    /// `webServiceURL` is not https. Error (F1).
    public static let jsonWebServiceURL = "pass.json.webServiceUrl"
    /// `authenticationToken` is shorter than 16 characters (its value is never printed). Error (F1).
    public static let jsonAuthenticationToken = "pass.json.authenticationToken"
    /// `webServiceURL` and `authenticationToken` must come together. Error (F1).
    public static let jsonWebServicePair = "pass.json.webServicePair"
    /// `appLaunchURL` without `associatedStoreIdentifiers` (numbers). Error (F2).
    public static let jsonAppLaunchURL = "pass.json.appLaunchUrl"
    /// A barcode is not an object, lacks `message`/`messageEncoding`, or has an unknown format. Error (F3).
    public static let jsonBarcode = "pass.json.barcode"
    /// Code128 in the legacy `barcode` key (only iOS 9+ draws it; use `barcodes`). Warning (F3).
    public static let jsonBarcodeCode128 = "pass.json.barcodeCode128"
    /// A colour is not `rgb(r, g, b)` with components 0–255. Warning (F4).
    public static let jsonColor = "pass.json.color"
    /// A date is not W3C `YYYY-MM-DDThh:mm[:ss](Z|±hh:mm)` (fractions, `+0000`, `ZZ` refused). Error (F5).
    public static let jsonDate = "pass.json.date"
    /// `expirationDate` is in the past: Wallet shows the pass as expired. Warning (F6).
    public static let jsonExpired = "pass.json.expired"
    /// `nfc` lacks a string `message` or it is over 64 bytes. Error (F7).
    public static let jsonNFC = "pass.json.nfc"
    /// A location lacks numeric latitude/longitude. Error (F7).
    public static let jsonLocation = "pass.json.location"
    /// A beacon lacks `proximityUUID`. Error (F7).
    public static let jsonBeacon = "pass.json.beacon"

    // MARK: pass.image.*

    /// No `icon.png`: Wallet silently rejects the pass. Error (G1).
    public static let imageIconMissing = "pass.image.iconMissing"
    /// A `.png` file is not a PNG. Warning (G2).
    public static let imageNotPNG = "pass.image.notPng"
    /// An image's pixel size does not fit its kind at its scale (@1x/@2x/@3x). Warning (G2).
    public static let imageSize = "pass.image.size"
    /// An image side exceeds `PassLimits.maxImageSide` (4096 px). Warning (Apple documents recommended sizes, no
    /// maximum); error when its decoded RGBA bitmap exceeds `PassLimits.maxTotalBytes` (32 MiB) (A5).
    public static let imageTooLarge = "pass.image.tooLarge"
    /// The style does not display this image (e.g. a strip on a generic pass). Warning (G3).
    public static let imageUnusedForStyle = "pass.image.unusedForStyle"

    // MARK: pass.strings.*

    /// A `.strings` file is neither UTF-8 nor UTF-16 with a byte order mark. Error (H2).
    public static let stringsEncoding = "pass.strings.encoding"
    /// A `.strings` file does not parse (line quoted). Error (H1).
    public static let stringsInvalid = "pass.strings.invalid"
    /// A locale's `pass.strings` lacks keys other locales have. Warning (H1).
    public static let stringsMissingKeys = "pass.strings.missingKeys"

    /// Every code above, for reports and tests.
    public static let all: [String] = [
        archiveNotZip, archiveTruncated, archiveCorrupt, archiveUnreadable, archiveCorruptEntry, archiveSizeMismatch,
        archivePrefixed, archiveTooLarge, archiveTooManyEntries, archiveEntryTooLarge, archiveCompressionRatio,
        archiveTotalTooLarge, archiveUnsafePath, archiveDuplicateName, archiveCaseDuplicate, archiveSymlink,
        archiveEncrypted, archiveUnsupportedCompression, archiveNotAtRoot, archiveJunk, fileUnreadable, contentType,
        bundleEmpty, bundleTooManyPasses, bundleExtraFile, bundleNested, bundleTooLarge, manifestMissing,
        manifestInvalidJSON, manifestJSONWarning,
        manifestNotObject, manifestListsExcluded, manifestInvalidHash, manifestUppercaseHash, manifestMissingFile,
        manifestHashMismatch, manifestUnlistedFile, signatureMissing, signatureUnparseable, signatureNotSignedData,
        signatureNotDetached, signatureManifestMismatch, signatureInvalid, signatureNoSigner,
        signatureMultipleSigners, signatureSignerNotFound, signatureNoSigningTime, signatureUnusualDigest,
        signatureWeakDigest, certNotPassType, certExtensionMismatch, certUIDMismatch, certSubjectMismatch,
        certTeamMismatch, certUntrusted, certChainInvalid, certExpiredAtSigning, certNotYetValidAtSigning,
        certExpiredSince, certWrongIntermediate, certIntermediateMissing, certNFCNotEnabled, jsonMissing,
        jsonInvalid, jsonBOM, jsonTrailingComma, jsonDuplicateKey, jsonNotObject, jsonMissingKey, jsonWrongType,
        jsonFormatVersion, jsonNoStyle, jsonMultipleStyles, jsonTransitType, jsonFieldInvalid, jsonFieldDuplicateKey,
        jsonFieldEnum, jsonWebServiceURL, jsonAuthenticationToken, jsonWebServicePair, jsonAppLaunchURL, jsonBarcode,
        jsonBarcodeCode128, jsonColor, jsonDate, jsonExpired, jsonNFC, jsonLocation, jsonBeacon, imageIconMissing,
        imageNotPNG, imageSize, imageTooLarge, imageUnusedForStyle, stringsEncoding, stringsInvalid,
        stringsMissingKeys,
    ]
}
