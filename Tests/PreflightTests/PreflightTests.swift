import Findings
import InboxCards
import Preflight
import Testing

struct FailPolicyTests {
    static let warning = Finding.warning("card.degraded", "x")
    static let error = Finding.error("input.invalidJSON", "x")
    static let info = Finding.info("card.slideUntitled", "x")

    @Test(arguments: [
        (FailPolicy.error, [info, warning], 1, false),
        (.error, [error], 0, true),
        (.warning, [info], 0, false),
        (.warning, [warning], 0, true),
        (.warning, [], 3, false),
        (.degrade, [warning], 0, false),
        (.degrade, [], 1, true),
        (.degrade, [error], 0, true),
        (.never, [error], 5, false),
    ])
    func failsAtOrAboveItsLevel(policy: FailPolicy, findings: [Finding], degraded: Int, fails: Bool) {
        #expect(policy.fails(worst: findings.maxSeverity, degradedCards: degraded) == fails)
    }
}

struct ResolveTextReportTests {
    static let campaign = Array(
        """
        {"request": {"notifications": [
          {"ios_title": "Sale", "inbox_days": 2, "data": {"displayType": "carousel", "carousel": [{"image": "https://c/1.png"}]}},
          {"content": "hi", "inbox_image": "https://c/b.png?token=SECRET", "data": "{\\"displayType\\": \\"banner\\"}"},
          {"content": "no inbox"}
        ]}}
        """.utf8)

    func render(color: Bool) -> String {
        let outcome = ResolveJob(options: ResolveOptions()).run([("c.json", Self.campaign)])
        return ResolveTextReport.render(outcome.run, style: TextStyle(color: color))
    }

    @Test func tableFindingsSdkLogAndSummary() {
        let text = render(color: false)
        #expect(text.hasPrefix("inbox-assets resolve — 3 messages, 2 cards (SDK 7.2; ios)\n"))
        #expect(
            text.contains("c.json#request.notifications[0]  7.2  ios       -     carousel → classic    no title/body\n")
        )
        #expect(text.contains("c.json#request.notifications[1]  7.2  ios       -     banner → banner\n"))
        #expect(
            text.contains(
                "SDK log: Inbox cell degraded — code=? displayType=carousel hasImage=false carousel→classic (no title/body)"
            ))
        #expect(text.contains("Inputs\n  c.json#request.notifications[2]\n    warning input.notInbox:"))
        #expect(text.contains("Summary: 2 cards, 1 degraded, 0 errors,"))
        #expect(!text.contains("SECRET"))
        #expect(!text.contains("\u{1B}["))
    }

    @Test func colourOnlyWhenAsked() {
        let text = render(color: true)
        #expect(text.contains("\u{1B}[33mcarousel → classic"))
        #expect(text.contains("\u{1B}[1mCARD"))
    }
}

struct AssetRolesTests {
    /// Which failing asset breaks which card (issue 6 "Roles"); everything else is a warning.
    @Test(arguments: [
        (AssetReference.Role.heroImage, CardKind.banner, true),
        (.heroImage, .captioned, true),
        (.heroImage, .wallet, false),
        (.avatar, .classic, false),
        (.icon, .classic, false),
        (.carouselSlide, .carousel, true),
        (.video, .video, true),
        (.videoPoster, .video, false),
        (.walletPass, .wallet, true),
        (.buttonLink, .classic, false),
        (.slideLink, .carousel, false),
    ])
    func neededAssets(role: AssetReference.Role, kind: CardKind, needed: Bool) {
        #expect(AssetRoles.isNeeded(role, renderedAs: kind) == needed)
    }
}
