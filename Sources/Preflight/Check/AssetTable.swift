import Findings
import InboxCards
import MediaRules
import StrictJSON

/// One way cards use an asset URL — the platform whose rules judge it, the role, the image use its card kind gives
/// it, whether the card needs it — which fixes everything the check says about it (``CheckPipeline`` judges each
/// once): 100,000 cards on 1,000 images have a few thousand of them.
struct AssetUseKey: Hashable {
    var url: String
    var platform: RulePlatform
    var role: AssetReference.Role
    var use: ImageUse?
    var needed: Bool

    init(url: String, platform: RulePlatform, role: AssetReference.Role, use: ImageUse?, needed: Bool) {
        self.url = url
        self.platform = platform
        self.role = role
        self.use = use
        self.needed = needed
    }

    /// The key of `url` in `role` on `card`: what its platform and the kind it renders as make of it.
    init(url: String, role: AssetReference.Role, on card: ResolvedCard) {
        self.init(
            url: url, platform: card.platform.rulePlatform, role: role,
            use: role.isLink ? nil : AssetRoles.imageUse(role, kind: card.resolved),
            needed: !card.degraded && AssetRoles.isNeeded(role, renderedAs: card.resolved))
    }
}

/// A distinct use of an asset by a check's cards, with the platform of the first card that uses it so.
struct AssetUse: Sendable {
    var key: AssetUseKey
    var platform: Platform
}

/// The JSON report's `assets` table (schemaVersion 2 and 3): every asset URL once, keyed by its redacted URL, with its
/// fetch and inspection facts and each way cards use it (`uses`: platform, role, needed, status, failure and the
/// findings, without verdicts). A card's `assets` entries refer to it by `url` and `use` and carry only their
/// status and their findings' verdicts, which can differ from card to card (ignore rules per input, the
/// baseline's per-card fingerprints).
///
/// Built from the checked cards in one pass (its size grows with the distinct URLs and uses, not with the cards).
struct AssetTable {
    /// One URL: its key in the table and every use of it, in the order the cards first use them.
    struct Entry {
        var key: String
        var url: String
        var uses: [(platform: Platform, asset: AssetCheck)] = []
    }

    private(set) var entries: [Entry] = []
    /// URL (secrets included) → its entry.
    private var entryIndex: [String: Int] = [:]
    /// Use → its entry and its index in the entry's `uses` (one lookup a reference).
    private var useIndex: [AssetUseKey: (entry: Int, use: Int)] = [:]
    /// Keys given out: two URLs that differ only in a secret redact alike, and the second gets ` (2)`.
    private var keys: Set<String> = []

    /// The config whose severity overrides are applied to the uses' findings as they are added.
    private var rules = FindingRules()

    /// The table of judged cards (their findings already carry the overrides).
    init(_ cards: [CardCheck]) {
        for card in cards.indices {
            for asset in cards[card].assets.indices { add(cards[card].assets[asset], of: cards[card].card) }
        }
    }

    /// The table of a check's cards before any is checked: `uses` are their distinct uses in the order the cards
    /// first use them (``PreparedCheck``), each judged in `judged`, with the config's severity overrides applied as
    /// the ``Verdict`` will apply them to each card's copy.
    init(uses: [AssetUse], judged: [AssetUseKey: AssetCheck], rules: FindingRules) {
        self.rules = rules
        for use in uses {
            if let asset = judged[use.key] { add(asset, key: use.key, platform: use.platform) }
        }
    }

    private mutating func add(_ asset: AssetCheck, of card: ResolvedCard) {
        add(asset, key: AssetUseKey(url: asset.url, role: asset.role, on: card), platform: card.platform)
    }

    private mutating func add(_ asset: AssetCheck, key: AssetUseKey, platform: Platform) {
        guard useIndex[key] == nil else { return }
        let entry: Int
        if let known = entryIndex[asset.url] {
            entry = known
        } else {
            let redacted = Redaction.redactURL(asset.url)
            var name = redacted
            var suffix = 1
            while keys.contains(name) {
                suffix += 1
                name = "\(redacted) (\(suffix))"
            }
            keys.insert(name)
            entry = entries.count
            entryIndex[asset.url] = entry
            entries.append(Entry(key: name, url: redacted))
        }
        useIndex[key] = (entry, entries[entry].uses.count)
        var shared = asset
        shared.index = nil
        if !rules.severity.isEmpty {
            for index in shared.findings.indices { rules.overrideSeverity(of: &shared.findings[index]) }
        }
        entries[entry].uses.append((platform, shared))
    }

    /// The table key and use index of `asset` on `card` (both were added when the table was built), and the
    /// use's status.
    func reference(of asset: AssetCheck, on card: ResolvedCard) -> (key: String, use: Int, status: AssetCheck.Status?) {
        let key = AssetUseKey(url: asset.url, role: asset.role, on: card)
        guard let (entry, use) = useIndex[key] else { return (asset.url, 0, nil) }
        return (entries[entry].key, use, entries[entry].uses[use].asset.status)
    }

    /// `{"<key>": {"url", facts…, "uses": […]}, …}`.
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        for entry in entries {
            writer.key(string: entry.key)
            writer.beginObject()
            Self.writeMembers(of: entry, to: &writer)
            writer.endObject()
        }
        writer.endObject()
    }

    /// One `asset` line per URL for `check --format ndjson`: `{"type":"asset","key",…the entry's members}`.
    func writeLines(to writer: inout JSONWriter) {
        for entry in entries {
            writer.beginObject()
            writer.key("type")
            writer.string("asset")
            writer.key("key")
            writer.string(entry.key)
            Self.writeMembers(of: entry, to: &writer)
            writer.endObject()
            writer.raw("\n")
        }
    }

    /// `url`, the facts (the first use's that has each: a link use has none), then `uses`.
    private static func writeMembers(of entry: Entry, to writer: inout JSONWriter) {
        func first<T>(_ fact: (AssetCheck) -> T?) -> T? {
            for use in entry.uses { if let value = fact(use.asset) { return value } }
            return nil
        }
        writer.key("url")
        writer.string(entry.url)
        writer.key("source")
        writer.string(first(\.source))
        writer.key("httpStatus")
        writer.int(first(\.httpStatus))
        writer.key("contentType")
        writer.string(first(\.contentType))
        writer.key("bytes")
        writer.int(first(\.bytes))
        writer.key("sha256")
        writer.string(first(\.sha256))
        writer.key("format")
        writer.string(first(\.format))
        writer.key("width")
        writer.int(first(\.width))
        writer.key("height")
        writer.int(first(\.height))
        writer.key("codec")
        writer.string(first(\.codec))
        writer.key("durationSeconds")
        writer.value(first(\.durationSeconds).map(JSONValue.double) ?? .null)
        writer.key("moovBeforeMdat")
        writer.bool(first(\.moovBeforeMdat))
        writer.key("uses")
        writer.beginArray()
        for use in entry.uses {
            writer.beginObject()
            writer.key("platform")
            writer.string(use.platform.rawValue)
            writer.key("role")
            writer.string(use.asset.role.rawValue)
            writer.key("needed")
            writer.bool(use.asset.needed)
            writer.key("status")
            writer.string(use.asset.status.rawValue)
            writer.key("failure")
            writer.string(use.asset.failure)
            writer.key("findings")
            writer.beginArray()
            for finding in use.asset.findings {
                // The finding as the rules made it; its verdict is each card's (the card's `assets[].findings`).
                var bare = finding
                bare.verdict = nil
                bare.write(to: &writer)
            }
            writer.endArray()
            writer.endObject()
        }
        writer.endArray()
    }

    /// A card's `assets` element: `{"role", "index", "url", "use", "status", "findings": [{"code", verdict…}]}`,
    /// the findings in the order of the use's. `brief` (the JSON document's messages) leaves out what the use says
    /// already: the role (always the use's), the status when it is the use's, and the findings when each has the
    /// default verdict (not failing, not suppressed, no baseline state).
    func writeReference(to writer: inout JSONWriter, _ asset: AssetCheck, on card: ResolvedCard, brief: Bool) {
        let reference = reference(of: asset, on: card)
        writer.beginObject()
        if !brief {
            writer.key("role")
            writer.string(asset.role.rawValue)
        }
        writer.key("index")
        writer.int(asset.index)
        writer.key("url")
        writer.string(reference.key)
        writer.key("use")
        writer.int(reference.use)
        if !brief || asset.status != reference.status {
            writer.key("status")
            writer.string(asset.status.rawValue)
        }
        if !brief || !asset.findings.allSatisfy(Self.hasDefaultVerdict) {
            writer.key("findings")
            writer.beginArray()
            for finding in asset.findings {
                writer.beginObject()
                writer.key("code")
                writer.string(finding.code)
                finding.writeVerdictMembers(to: &writer)
                writer.endObject()
            }
            writer.endArray()
        }
        writer.endObject()
    }

    /// Judged, and neither failing, suppressed, nor new or known to the baseline: what a reader assumes.
    private static func hasDefaultVerdict(_ finding: Finding) -> Bool {
        guard let verdict = finding.verdict else { return false }
        return !verdict.failing && verdict.suppressed == nil && verdict.baseline == nil
    }
}
