/// The `asset.*` codes the pipeline adds (the engine's own fetch failures are ``FetchFailure/findingCode``:
/// `asset.httpStatus`, `asset.timeout`, …), and `card.broken`, which the check adds to a card.
public enum AssetFindingCode {
    /// A needed asset fails (hero image, carousel slide, video, pass): the card renders as its kind but broken
    /// (error).
    public static let cardBroken = "card.broken"
    /// The wallet card's pass is invalid: "Add to Apple Wallet" fails; the pass's own findings are in `passes`
    /// (error).
    public static let passInvalid = "asset.passInvalid"
    /// The body is larger than the inspection limit, so its content was not inspected (info).
    public static let notInspected = "asset.notInspected"

    /// Offline, and the store has no entry for the URL (error). Same code as ``MissingAsset``'s.
    public static let notInStore = "asset.notInStore"
    /// The stored body failed its size or hash check; it was removed, and fetched again when online
    /// (warning when fetched again, error offline). Same code as ``BlobDamage/finding``.
    public static let storeDamaged = "asset.storeDamaged"
    /// Offline, and the entry's stored body is gone (error). Same code as ``MissingAsset``'s.
    public static let storeMissing = "asset.storeMissing"
    /// The store could not be read or written: an I/O error, or (for `prefetch`, which exits 2) a full disk or a
    /// read-only directory (error).
    public static let storeFailed = "asset.storeFailed"
    /// The store cannot be written (read-only mount, another user's directory, no write permission, full disk):
    /// `check` and `export` used the copies it holds and kept new downloads in memory for this run only; reported
    /// once per run, not per asset (warning).
    public static let storeReadOnly = "store.readOnly"
    /// A blob from the remote cache (`--remote-cache`) did not match its SHA-256 or size: it was discarded and the
    /// asset fetched from origin, whose good copy replaces it in the remote (warning).
    public static let remoteDamaged = "store.remoteDamaged"
    /// The remote cache was down, slow, refusing (401/403) or full (413/507): the run went on with the origin, once
    /// for the whole run (warning; never fails a check).
    public static let remoteUnavailable = "store.remoteUnavailable"
    /// A sharded `check` (`--shard I/N`): how many assets this run checked and how many it left to other shards,
    /// whose assets are reported as skipped (`source: "other-shard"`) (info, once per run).
    public static let otherShard = "asset.otherShard"
    /// The server sent `Cache-Control: no-store`: the body was used for this run only and will not be there
    /// offline or for an export (warning).
    public static let noStore = "asset.noStore"
    /// A 403, 429 or 503 that is a CDN or WAF bot-protection challenge (`cf-mitigated: challenge`,
    /// `x-amzn-waf-action: challenge`, an HTML page Cloudflare served) instead of the asset: the app, with its own headers,
    /// may still load it, so the card is not broken; allow the checker's User-Agent or set a header for the host
    /// in the config (warning). Same code as the engine's finding for such a response.
    public static let botChallenge = "asset.botChallenge"

    // Root causes (``RootCause``): one finding for a host that fails every request the same way; the per-asset
    // findings stay in JSON, text and Markdown print the root cause once.

    /// Every request to the host failed its TLS handshake or certificate check (name mismatch, expired, unknown
    /// CA) (error).
    public static let hostTLS = "asset.hostTLS"
    /// The host name of every request did not resolve (error).
    public static let hostDNS = "asset.hostDNS"
    /// Every connection to the host was refused or could not be made (error).
    public static let hostConnect = "asset.hostConnect"
    /// The host answered every request with the same 401, 403, 429 or 5xx (error).
    public static let hostStatus = "asset.hostStatus"
}
