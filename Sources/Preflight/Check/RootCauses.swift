public import Findings
public import StrictJSON

/// A failure many assets share: one host whose TLS handshake, DNS lookup or connection fails, or that answers
/// every request with the same 401, 403, 429 or 5xx. Text and Markdown print it once with its count instead of
/// once per card and language; JSON lists it in `rootCauses` and each card it breaks names it (`rootCauses`).
public struct RootCause: Sendable, Hashable {
    /// `asset.hostTLS cdn.example.com`: the code and the host.
    public var id: String { "\(code) \(host)" }
    /// `asset.hostTLS`, `asset.hostDNS`, `asset.hostConnect` or `asset.hostStatus` (``AssetFindingCode``).
    public var code: String
    public var host: String
    /// The fetch failure class every URL of the host failed with (`tls`, `dns`, `connect`, `http-status`).
    public var failure: String
    public var httpStatus: Int?
    /// The distinct URLs (secrets included; redacted where printed).
    public var urls: [String]
    /// How many cards (one per profile, platform and language) have an asset among them.
    public var cards: Int
    /// The first URL's error text (curl's reason), redacted.
    public var detail: String?

    /// `cdn.example.com: TLS handshake failed for every request (20 URLs) — breaks 28 cards`.
    public var finding: Finding {
        let what: String =
            switch failure {
            case "tls": "TLS handshake failed"
            case "dns": "DNS lookup failed"
            case "connect": "connection failed"
            default: "HTTP \(httpStatus ?? 0)"
            }
        var message = "\(host): \(what) for every request (\(urls.count) URLs) — breaks \(cards) "
        message += cards == 1 ? "card" : "cards"
        if let detail { message += " (\(detail))" }
        return .error(code, message)
    }

    public var json: JSONValue {
        .object(
            JSONObject([
                ("id", .string(id)), ("code", .string(code)), ("host", .string(host)), ("failure", .string(failure)),
                ("httpStatus", httpStatus.map(JSONValue.int) ?? .null),
                ("message", .string(Redaction.redactText(finding.message))),
                ("urls", .array(urls.map { .string(Redaction.redactURL($0)) })), ("cards", .int(cards)),
            ]))
    }

    /// The root causes of a report's failed assets: per host, when at least two distinct URLs were fetched from it
    /// and every one failed the same way (TLS, DNS, connect, or one of 401, 403, 429, 5xx).
    public static func find(in report: CheckReport) -> [RootCause] {
        find { visit in for check in report.cards { visit(check.assets) } }
    }

    /// ``find(in:)`` over cards given one at a time: `cards` calls its argument with each card's assets, in card
    /// order (twice: once to find the causes, once to count the cards under them).
    static func find(cards: (_ visit: ([AssetCheck]) -> Void) -> Void) -> [RootCause] {
        find(uses: cards, cards: cards)
    }

    /// ``find(cards:)`` with the causes found from `uses` — any walk that meets each URL's first non-skipped use in
    /// the cards' order (the distinct uses in first-use order do) — and the cards walked only to count them, and
    /// only when there is a cause.
    static func find(
        uses: (_ visit: ([AssetCheck]) -> Void) -> Void, cards: (_ visit: ([AssetCheck]) -> Void) -> Void
    ) -> [RootCause] {
        struct Host {
            var urls: [String: (failure: String?, status: Int?, detail: String?)] = [:]
            var order: [String] = []
        }
        var hosts: [String: Host] = [:]
        var hostOrder: [String] = []
        uses { assets in
            for asset in assets where asset.status != .skipped {
                guard let host = Glob.host(of: asset.url) else { continue }
                if hosts[host] == nil { hostOrder.append(host) }
                if hosts[host, default: Host()].urls[asset.url] == nil {
                    let detail = asset.findings.first { $0.severity != .info }?.message
                    hosts[host, default: Host()].urls[asset.url] = (
                        asset.status == .failed ? asset.failure : nil, asset.httpStatus, detail
                    )
                    hosts[host, default: Host()].order.append(asset.url)
                }
            }
        }
        var found: [(name: String, code: String, first: (failure: String?, status: Int?, detail: String?))] = []
        for name in hostOrder {
            guard let host = hosts[name], host.order.count >= 2, let first = host.urls[host.order[0]] else { continue }
            let same = host.order.allSatisfy {
                host.urls[$0]?.failure == first.failure && host.urls[$0]?.status == first.status
            }
            guard same, let failure = first.failure else { continue }
            let code: String
            switch failure {
            case "tls": code = AssetFindingCode.hostTLS
            case "dns": code = AssetFindingCode.hostDNS
            case "connect": code = AssetFindingCode.hostConnect
            case "http-status":
                guard let status = first.status, [401, 403, 429].contains(status) || (500...599).contains(status)
                else { continue }
                code = AssetFindingCode.hostStatus
            default: continue
            }
            found.append((name, code, first))
        }
        guard !found.isEmpty else { return [] }
        // Cards per cause, in one more pass over the cards.
        var causeOf: [String: Int] = [:]
        for (index, cause) in found.enumerated() {
            for url in hosts[cause.name]?.order ?? [] { causeOf[url] = index }
        }
        var cardCounts = [Int](repeating: 0, count: found.count)
        cards { assets in
            var under: Set<Int> = []
            for asset in assets { if let index = causeOf[asset.url] { under.insert(index) } }
            for index in under { cardCounts[index] += 1 }
        }
        var causes: [RootCause] = []
        for (index, cause) in found.enumerated() {
            let failure = cause.first.failure ?? ""
            causes.append(
                RootCause(
                    code: cause.code, host: cause.name, failure: failure,
                    httpStatus: failure == "http-status" ? cause.first.status : nil,
                    urls: hosts[cause.name]?.order ?? [], cards: cardCounts[index],
                    detail: cause.first.detail.map(Self.reason)))
        }
        return causes
    }

    /// The part of an engine message in parentheses (curl's reason), else the message.
    static func reason(_ message: String) -> String {
        guard let open = message.lastIndex(of: "("), message.hasSuffix(")") else {
            return Redaction.redactText(message)
        }
        return Redaction.redactText(
            String(message[message.index(after: open)..<message.index(before: message.endIndex)]))
    }
}
