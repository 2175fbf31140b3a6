import InboxCards
import Preflight
import Testing

struct RetrievalPlanTests {
    static func cards(_ notifications: [String]) -> [ResolvedCard] {
        let json = "{\"request\": {\"notifications\": [" + notifications.joined(separator: ",") + "]}}"
        return ResolveJob(options: ResolveOptions()).run([("c.json", Array(json.utf8))]).run.cards
    }

    static let banner = """
        {"content": "x", "inbox_image": "https://cdn.example.com/a.png", "inbox_days": 1,
         "data": {"displayType": "banner"}}
        """

    @Test func thousandMessagesSharingOneURLAreOneItem() {
        let plan = AssetPlan.make(Self.cards(Array(repeating: Self.banner, count: 1_000)))
        #expect(
            plan.items == [AssetPlan.Item(url: "https://cdn.example.com/a.png", roles: [.heroImage], mode: .download)])
    }

    @Test func rolesAreMergedLinksSkippedAndFirstSeenOrderKept() {
        let carousel = """
            {"ios_title": "t", "content": "b", "inbox_days": 1, "data": {"displayType": "carousel", "carousel": [
              {"image": "https://cdn.example.com/s1.jpg?token=SECRET", "title": "1", "url": "https://shop.example.com/1"},
              {"image": "https://cdn.example.com/a.png", "title": "2"}]}}
            """
        let video = """
            {"ios_title": "t", "content": "b", "inbox_days": 1, "data": {"displayType": "video",
             "video": {"url": "https://cdn.example.com/v.m3u8", "poster": "https://cdn.example.com/a.png"}}}
            """
        let plan = AssetPlan.make(Self.cards([Self.banner, carousel, video, carousel]))
        #expect(
            plan.items.map(\.url) == [
                "https://cdn.example.com/a.png", "https://cdn.example.com/s1.jpg?token=SECRET",
                "https://shop.example.com/1",
                "https://cdn.example.com/v.m3u8",
            ])
        #expect(plan.items[0].roles == [.heroImage, .carouselSlide, .videoPoster])
        #expect(plan.items.map(\.mode) == [.download, .download, .skip, .video])
        #expect(
            plan.urls(.download) == ["https://cdn.example.com/a.png", "https://cdn.example.com/s1.jpg?token=SECRET"])
        #expect(plan.urls(.video) == ["https://cdn.example.com/v.m3u8"])
    }

    @Test func noCardsNoItems() {
        #expect(AssetPlan.make([]).items.isEmpty)
        #expect(AssetPlan.make(Self.cards(["{\"content\": \"plain push\"}"])).items.isEmpty)
    }
}
