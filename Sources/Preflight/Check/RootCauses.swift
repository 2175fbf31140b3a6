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
        struct Host {
            var urls: [String: (failure: String?, status: Int?, detail: String?)] = [:]
            var order: [String] = []
        }
        var hosts: [String: Host] = [:]
        var hostOrder: [String] = []
        for check in report.cards {
            for asset in check.assets where asset.status != .skipped {
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
        var causes: [RootCause] = []
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
            let urls = Set(host.order)
            let cards = report.cards.filter { check in check.assets.contains { urls.contains($0.url) } }.count
            causes.append(
                RootCause(
                    code: code, host: name, failure: failure, httpStatus: failure == "http-status" ? first.status : nil,
                    urls: host.order, cards: cards, detail: first.detail.map(Self.reason)))
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
