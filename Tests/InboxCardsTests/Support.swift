import Findings
import StrictJSON
import Testing

@testable import InboxCards

/// Inputs built in code: each helper wraps the interesting part in a real input document, serialises it,
/// and goes through the real reader, so every test also exercises reading.
enum Input {
    /// A createMessage request holding `notifications`.
    static func request(_ notifications: [JSONValue]) -> [UInt8] {
        let request: JSONValue = [
            "request": [
                "application": "ABCDE-12345", "auth": "SECRET-AUTH-TOKEN", "notifications": .array(notifications),
            ]
        ]
        return Array(request.serialized().utf8)
    }

    /// An inbox notification: title, body, `inbox_days`, plus `extra` members (which win).
    static func notification(
        title: JSONValue? = "Title", body: JSONValue? = "Body", image: JSONValue? = nil, data: JSONValue? = nil,
        extra: [(String, JSONValue)] = []
    ) -> JSONValue {
        var object = JSONObject([("send_date", "now"), ("inbox_days", 7)])
        if let title { object["ios_title"] = title }
        if let body { object["content"] = body }
        if let image { object["inbox_image"] = image }
        if let data { object["data"] = data }
        for (key, value) in extra { object[key] = value }
        return .object(object)
    }

    /// A feed message whose `action_params` is the JSON-encoded `params` (or `params` itself when `encode` is false).
    static func feed(
        id: String = "inbox-1", title: String? = "Title", text: String? = "Body", image: String? = nil,
        params: JSONValue?, encode: Bool = true
    ) -> JSONValue {
        // Every key both SDKs require of a feed message (android-inbox.md §3), expiring far in the future.
        var object = JSONObject([
            ("inbox_id", .string(id)), ("order", 1), ("send_date", 1_700_000_000), ("rt", 4_102_444_800),
            ("action_type", 0), ("status", 1),
        ])
        if let title { object["title"] = .string(title) }
        // `text` is a required key: a message "without a body" has an empty one (a missing key drops the message).
        object["text"] = .string(text ?? "")
        if let image { object["image"] = .string(image) }
        if let params { object["action_params"] = encode ? .string(params.serialized()) : params }
        return .object(object)
    }

    static func bytes(_ value: JSONValue) -> [UInt8] { Array(value.serialized().utf8) }
}

/// Reads and resolves, failing the test on an input error.
func resolve(
    _ bytes: [UInt8], profiles: [SDKProfile] = [.v7_2], platforms: [Platform] = [.ios], force: CardKind? = nil,
    source: String = "campaign.json"
) throws -> [ResolvedCard] {
    let batch = try CampaignReader.read(bytes: bytes, source: source)
    return CardResolver(options: ResolveOptions(profiles: profiles, platforms: platforms, forceKind: force))
        .resolve(batch.messages)
}

/// The single card of one notification for one profile.
func card(_ notification: JSONValue, profile: SDKProfile = .v7_2, force: CardKind? = nil) throws -> ResolvedCard {
    let cards = try resolve(Input.request([notification]), profiles: [profile], force: force)
    try #require(cards.count == 1)
    return cards[0]
}

/// The single card of one feed message for one profile.
func feedCard(_ message: JSONValue, profile: SDKProfile = .v7_2) throws -> ResolvedCard {
    let cards = try resolve(Input.bytes(message), profiles: [profile])
    try #require(cards.count == 1)
    return cards[0]
}

extension ResolvedCard {
    func has(_ code: String) -> Bool { findings.contains { $0.code == code } }
    func finding(_ code: String) -> Finding? { findings.first { $0.code == code } }
    func urls(_ role: AssetReference.Role) -> [String] { assets.filter { $0.role == role }.map(\.fetchURL) }
}

extension ReadBatch {
    func has(_ code: String) -> Bool { findings.contains { $0.finding.code == code } }
    func finding(_ code: String) -> SourcedFinding? { findings.first { $0.finding.code == code } }
}

/// A named table row, so failures read as the rule they check.
struct Named<Value: Sendable>: Sendable, CustomTestStringConvertible {
    var name: String
    var value: Value
    init(_ name: String, _ value: Value) {
        self.name = name
        self.value = value
    }
    var testDescription: String { name }
}
