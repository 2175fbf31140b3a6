import StrictJSON
import Testing

@testable import InboxCards

/// Whether an inbox shows a message at all (android-inbox.md §3), and the feed order (§4).

private enum VisibilityFixture {
    /// 2025-06-15T15:06:40Z.
    static let at: Int64 = 1_750_000_000
    /// Midnight (UTC) starting the day of ``at``.
    static let today: Int64 = 1_749_945_600

    static func run(_ value: JSONValue, platforms: [Platform] = [.ios, .android]) throws -> ResolveRun {
        let batch = try CampaignReader.read(bytes: Input.bytes(value), source: "inbox.json")
        return CardResolver(options: ResolveOptions(platforms: platforms, at: at)).run(batch)
    }

    /// A feed message with every required key, expiring a day after ``at``; `changes` replace (or, with `nil`,
    /// remove) keys.
    static func feed(_ changes: [(String, JSONValue?)] = [], id: String = "m-1") -> JSONValue {
        var object = JSONObject([
            ("inbox_id", .string(id)), ("order", 1), ("rt", .int(Int(at) + 86_400)), ("title", "Title"),
            ("text", "Body"), ("send_date", .int(Int(at) - 3_600)), ("action_type", 0), ("status", 1),
            ("action_params", "{}"),
        ])
        for (key, value) in changes { object[key] = value }
        return .object(object)
    }

    /// A delivered push whose `inbox_params` are `params` (`nil` = none).
    static func push(_ params: JSONValue?, extra: [(String, JSONValue)] = []) -> JSONValue {
        var object = JSONObject([
            ("pw_inbox", "p-1"), ("aps", ["alert": ["title": "Title", "body": "Body"]]), ("header", "Title"),
            ("title", "Body"),
        ])
        if let params { object["inbox_params"] = params }
        for (key, value) in extra { object[key] = value }
        return .object(object)
    }

    /// A createMessage notification with `members` (which win over the defaults).
    static func notification(_ members: [(String, JSONValue)]) -> JSONValue {
        var object = JSONObject([("ios_title", "Title"), ("title", "Title"), ("content", "Body"), ("send_date", "now")])
        for (key, value) in members { object[key] = value }
        return .object(object)
    }
}

/// The visibility codes a run's input findings carry, one `platform:code` per hidden platform.
private let visibilityCodes: Set<String> = [
    "input.feedKeyMissing", "input.feedValueInvalid", "input.statusUnknown", "input.deleted", "input.expired",
    "input.expiryInvalid", "input.expiresBeforeSend",
]

extension ResolveRun {
    /// `ios:input.deleted`-style entries for the messages a platform hides (the finding says which platform).
    fileprivate var hidden: [String] {
        inputFindings.compactMap { sourced in
            let finding = sourced.finding
            guard visibilityCodes.contains(finding.code) else { return nil }
            let platform =
                finding.message.hasSuffix("(ios: no card)")
                ? "ios" : finding.message.hasSuffix("(android: no card)") ? "android" : "?"
            return "\(platform):\(finding.code)"
        }
        .sorted()
    }

    /// The platforms that got a card.
    fileprivate var shownOn: [Platform] { cards.map(\.platform) }
}

@Suite struct VisibilityTests {
    struct Row: Sendable {
        var message: JSONValue
        /// Platforms with a card.
        var shown: [Platform]
        /// `platform:code` of the hidden platforms.
        var hidden: [String] = []
        /// Findings a shown card carries (`platform:code`).
        var cardCodes: [String] = []
    }

    static let both: [Platform] = [.ios, .android]
    static let at = Int(VisibilityFixture.at)

    static let feedRows: [Named<Row>] = [
        Named("status 0 shown on both", Row(message: VisibilityFixture.feed([("status", 0)]), shown: both)),
        Named("status 1 shown on both", Row(message: VisibilityFixture.feed([("status", 1)]), shown: both)),
        Named("status 2 shown on both", Row(message: VisibilityFixture.feed([("status", 2)]), shown: both)),
        Named("status 3 shown on both", Row(message: VisibilityFixture.feed([("status", 3)]), shown: both)),
        Named(
            "status 4 (deleted) hidden on both",
            Row(
                message: VisibilityFixture.feed([("status", 4)]), shown: [],
                hidden: ["android:input.deleted", "ios:input.deleted"])),
        Named(
            "status 5 hidden on Android, shown on iOS",
            Row(
                message: VisibilityFixture.feed([("status", 5)]), shown: [.ios], hidden: ["android:input.deleted"],
                cardCodes: ["ios:input.deleted"])),
        Named(
            "status 9 unknown to Android, stored as is on iOS",
            Row(
                message: VisibilityFixture.feed([("status", 9)]), shown: [.ios], hidden: ["android:input.statusUnknown"]
            )),
        Named(
            "status -1 unknown to Android",
            Row(
                message: VisibilityFixture.feed([("status", -1)]), shown: [.ios],
                hidden: ["android:input.statusUnknown"])),
        Named("rt after at shown on both", Row(message: VisibilityFixture.feed([("rt", .int(at + 1))]), shown: both)),
        Named(
            "rt == at: iOS shown (< now hides), Android hidden (> now shows)",
            Row(message: VisibilityFixture.feed([("rt", .int(at))]), shown: [.ios], hidden: ["android:input.expired"])),
        Named(
            "rt before at hidden on both",
            Row(
                message: VisibilityFixture.feed([("rt", .int(at - 1))]), shown: [],
                hidden: ["android:input.expired", "ios:input.expired"])),
        Named(
            "rt as a numeric string (Long.parseLong(getString))",
            Row(message: VisibilityFixture.feed([("rt", .string(String(at + 60)))]), shown: both)),
        Named(
            "action_type \"RichMedia\" breaks Android's getInt",
            Row(
                message: VisibilityFixture.feed([("action_type", "RichMedia")]), shown: [.ios],
                hidden: ["android:input.feedValueInvalid"])),
        Named(
            "action_type \"1\" is an integer to org.json",
            Row(message: VisibilityFixture.feed([("action_type", "1")]), shown: both)),
        Named(
            "order 1.5 breaks Android's Long.parseLong",
            Row(
                message: VisibilityFixture.feed([("order", 1.5)]), shown: [.ios],
                hidden: ["android:input.feedValueInvalid"])),
        Named(
            "status \"read\" breaks Android's getInt",
            Row(
                message: VisibilityFixture.feed([("status", "read")]), shown: [.ios],
                hidden: ["android:input.feedValueInvalid"])),
    ]

    /// §3: feed statuses, expiry and value types, per platform.
    @Test(arguments: feedRows)
    func feed(_ row: Named<Row>) throws {
        try check(row.value)
    }

    static let requiredKeys = ["inbox_id", "order", "rt", "text", "action_type", "status"]

    /// §3: a feed message without one of the six required keys is dropped by both SDKs.
    @Test(arguments: requiredKeys)
    func missingRequiredKey(_ key: String) throws {
        let run = try VisibilityFixture.run(VisibilityFixture.feed([(key, nil)]))
        #expect(run.cards.isEmpty)
        #expect(run.hidden == ["android:input.feedKeyMissing", "ios:input.feedKeyMissing"])
        #expect(
            run.inputFindings.allSatisfy {
                $0.finding.code != "input.feedKeyMissing" || $0.finding.message.contains(key)
            })
    }

    static let pushRows: [Named<Row>] = [
        Named(
            "no inbox_params: iOS takes no entry, Android keeps expiry 0",
            Row(
                message: VisibilityFixture.push(nil), shown: [],
                hidden: ["android:input.expiryInvalid", "ios:input.expiryInvalid"])),
        Named(
            "inbox_params without rt",
            Row(
                message: VisibilityFixture.push(["image": "https://cdn.example.com/a.png"]), shown: [],
                hidden: ["android:input.expiryInvalid", "ios:input.expiryInvalid"])),
        Named(
            "rt yyyy-MM-dd in the future: iOS shown, Android cannot read it",
            Row(
                message: VisibilityFixture.push(["rt": "2030-01-01"]), shown: [.ios],
                hidden: ["android:input.expiryInvalid"])),
        Named(
            "rt yyyy-MM-dd in the past: iOS expired, Android cannot read it",
            Row(
                message: VisibilityFixture.push(["rt": "2020-01-01"]), shown: [],
                hidden: ["android:input.expiryInvalid", "ios:input.expired"])),
        Named(
            "rt epoch seconds in the future: Android shown, iOS never expires",
            Row(
                message: VisibilityFixture.push(["rt": .int(at + 3_600)]), shown: both,
                cardCodes: ["ios:input.expiryInvalid"])),
        Named(
            "rt epoch seconds in the past: Android expired, iOS never expires",
            Row(
                message: VisibilityFixture.push(["rt": .int(at - 3_600)]), shown: [.ios],
                hidden: ["android:input.expired"],
                cardCodes: ["ios:input.expiryInvalid"])),
        Named(
            "rt epoch seconds == at: Android hidden (strict)",
            Row(
                message: VisibilityFixture.push(["rt": .int(at)]), shown: [.ios], hidden: ["android:input.expired"],
                cardCodes: ["ios:input.expiryInvalid"])),
        Named(
            "inbox_params as a JSON string (the Android bundle)",
            Row(
                message: VisibilityFixture.push(.string("{\"rt\":\(at + 3_600)}")), shown: both,
                cardCodes: ["ios:input.expiryInvalid"])),
    ]

    /// §3 "push entry expiry": iOS parses `inbox_params.rt` as `yyyy-MM-dd` and needs it; Android reads epoch seconds.
    @Test(arguments: pushRows)
    func push(_ row: Named<Row>) throws {
        try check(row.value)
    }

    static let notificationRows: [Named<Row>] = [
        Named(
            "inbox_date in the past",
            Row(
                message: VisibilityFixture.notification([("inbox_date", "2025-06-14")]), shown: [],
                hidden: ["android:input.expired", "ios:input.expired"])),
        Named(
            "inbox_date today: kept until the day ends",
            Row(message: VisibilityFixture.notification([("inbox_date", "2025-06-15")]), shown: both)),
        Named(
            "inbox_date in the future",
            Row(message: VisibilityFixture.notification([("inbox_date", "2025-07-01")]), shown: both)),
        Named(
            "inbox_date unparseable: shown, with a warning",
            Row(
                message: VisibilityFixture.notification([("inbox_date", "01/07/2025")]), shown: both,
                cardCodes: ["android:input.expiryInvalid", "ios:input.expiryInvalid"])),
        Named(
            "inbox_date before send_date",
            Row(
                message: VisibilityFixture.notification([
                    ("inbox_date", "2025-07-01"), ("send_date", "2025-07-02 10:00"),
                ]),
                shown: [], hidden: ["android:input.expiresBeforeSend", "ios:input.expiresBeforeSend"])),
        Named(
            "inbox_date on the send day",
            Row(
                message: VisibilityFixture.notification([
                    ("inbox_date", "2025-07-02"), ("send_date", "2025-07-02 10:00"),
                ]),
                shown: both)),
        Named(
            "inbox_days: no expiry to judge",
            Row(message: VisibilityFixture.notification([("inbox_days", 3)]), shown: both)),
    ]

    /// createMessage `inbox_date` (inboxkit-cards.md §1: "the expiry date"), judged at `--at`.
    @Test(arguments: notificationRows)
    func notification(_ row: Named<Row>) throws {
        try check(.object(JSONObject([("request", ["notifications": [row.value.message]])])), row.value)
    }

    private func check(_ row: Row) throws {
        try check(row.message, row)
    }

    private func check(_ input: JSONValue, _ row: Row) throws {
        let run = try VisibilityFixture.run(input)
        #expect(run.shownOn == row.shown)
        #expect(run.hidden == row.hidden.sorted())
        let codes = run.cards.flatMap { card in
            card.findings.filter { visibilityCodes.contains($0.code) }.map { "\(card.platform):\($0.code)" }
        }
        #expect(codes.sorted() == row.cardCodes.sorted())
    }

    /// A hidden message's finding names its source and the field that decided.
    @Test func hiddenFindingNamesTheField() throws {
        let run = try VisibilityFixture.run(
            .array([VisibilityFixture.feed(), VisibilityFixture.feed([("status", 4)], id: "m-2")]))
        #expect(run.cards.map(\.code) == ["m-1", "m-1"])
        let finding = try #require(run.inputFindings.first { $0.finding.code == "input.deleted" })
        #expect(finding.source == "inbox.json#[1]")
        #expect(finding.finding.path == "[1].status")
    }
}

// MARK: - §4 Feed order

@Suite struct FeedOrderTests {
    /// A visible feed message (shown on both platforms) sent at `sent`, with a classic card so that Android can pin.
    static func message(_ id: String, sent: Int, status: Int = 1, order: Int = 1, pinned: Bool = false) -> JSONValue {
        let params: JSONValue = ["displayType": "classic", "pinned": .bool(pinned)]
        return VisibilityFixture.feed(
            [
                ("send_date", .int(sent)), ("status", .int(status)), ("order", .int(order)),
                ("action_params", .string(params.serialized())),
            ], id: id)
    }

    static func positions(_ run: ResolveRun, _ platform: Platform) -> [String] {
        run.cards.filter { $0.platform == platform }.sorted { ($0.feedPosition ?? -1) < ($1.feedPosition ?? -1) }
            .map { $0.code ?? "?" }
    }

    /// §4: iOS puts pinned first, then unread, then newest; Android sorts by send date only — pinned and unread do
    /// not move a message.
    @Test func pinnedUnreadNewestOnIOSSendDateOnAndroid() throws {
        let run = try VisibilityFixture.run(
            .array([
                Self.message("read-old", sent: 100, status: 2),
                Self.message("unread", sent: 300, status: 1),
                Self.message("pinned", sent: 200, status: 1, pinned: true),
                Self.message("read-new", sent: 400, status: 3),
            ]))
        #expect(Self.positions(run, .ios) == ["pinned", "unread", "read-new", "read-old"])
        #expect(Self.positions(run, .android) == ["read-new", "unread", "pinned", "read-old"])
        let android = run.cards.filter { $0.platform == .android }
        #expect(android.first { $0.code == "pinned" }?.pinned == true, "the card is pinned, it just does not sort")
        #expect(run.cards.map(\.feedPosition) == [3, 3, 1, 1, 0, 2, 2, 0])
    }

    /// §4: Android shows push-delivered messages before service ones whatever their date; iOS does not.
    @Test func androidPushFirst() throws {
        let push = VisibilityFixture.push(["rt": .int(Int(VisibilityFixture.at) + 3_600)], extra: [("send_date", 50)])
        let run = try VisibilityFixture.run(
            .array([Self.message("service-new", sent: 400), push, Self.message("service-old", sent: 100)]))
        #expect(Self.positions(run, .android) == ["p-1", "service-new", "service-old"])
        #expect(Self.positions(run, .ios) == ["service-new", "service-old", "p-1"])
    }

    /// §4: the same send date → `order`, highest first, on both platforms.
    @Test func orderBreaksSendDateTies() throws {
        let run = try VisibilityFixture.run(
            .array([Self.message("low", sent: 200, order: 5), Self.message("high", sent: 200, order: 9)]))
        #expect(Self.positions(run, .ios) == ["high", "low"])
        #expect(Self.positions(run, .android) == ["high", "low"])
    }

    /// §4: Android's next keys are the title (descending), iOS storage's the code (descending).
    @Test func titleOnAndroidCodeOnIOS() throws {
        let apple = VisibilityFixture.feed([("send_date", 200), ("title", "Apple")], id: "z")
        let banana = VisibilityFixture.feed([("send_date", 200), ("title", "Banana")], id: "a")
        let run = try VisibilityFixture.run(.array([banana, apple]))
        #expect(Self.positions(run, .ios) == ["z", "a"])
        #expect(Self.positions(run, .android) == ["a", "z"])
    }

    /// Hidden messages take no place: the positions of each feed are 0..<n.
    @Test func hiddenMessagesTakeNoPosition() throws {
        let run = try VisibilityFixture.run(
            .array([
                Self.message("a", sent: 300),
                Self.message("deleted", sent: 400, status: 4),
                Self.message("android-hidden", sent: 350, status: 5),
                Self.message("b", sent: 200),
            ]))
        #expect(Self.positions(run, .ios) == ["android-hidden", "a", "b"])
        #expect(Self.positions(run, .android) == ["a", "b"])
        #expect(run.cards.filter { $0.platform == .android }.map(\.feedPosition) == [0, 1])
    }

    /// Each platform and profile is its own feed (one position sequence per Android profile).
    @Test func oneFeedPerProfile() throws {
        let batch = try CampaignReader.read(
            bytes: Input.bytes(.array([Self.message("old", sent: 100), Self.message("new", sent: 200)])),
            source: "inbox.json")
        let options = ResolveOptions(
            profiles: [.v7_1, .v7_2], platforms: [.ios, .android], androidProfiles: [.v6_12, .v6_13],
            at: VisibilityFixture.at)
        let run = CardResolver(options: options).run(batch)
        #expect(run.cards.count == 8)
        for card in run.cards {
            #expect(card.feedPosition == (card.code == "new" ? 0 : 1), "\(card.platform) \(card.profileName ?? "")")
        }
    }
}
