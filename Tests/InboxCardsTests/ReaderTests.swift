import Findings
import StrictJSON
import Testing

@testable import InboxCards

private func read(_ text: String, source: String = "in.json") throws -> ReadBatch {
    try CampaignReader.read(bytes: Array(text.utf8), source: source)
}

private let feedLine =
    #"{"inbox_id":"a1","order":1,"rt":4102444800,"action_type":0,"status":1,"title":"T","text":"B","image":"https://cdn.example.com/inbox/a.png","action_params":"{\"displayType\":\"banner\"}"}"#
private let pushLine =
    #"{"pw_inbox":"p1","aps":{"alert":{"title":"T","body":"B"}},"inbox_params":{"image":"https://cdn.example.com/inbox/p.png","rt":"2099-12-31"},"u":"{\"displayType\":\"banner\"}"}"#

/// Input shapes and source ids (§1).
@Suite struct ReaderShapeTests {
    static let rows: [Named<(String, [String], [MessageShape])>] = [
        Named(
            "createMessage request",
            (
                #"{"request":{"application":"A","auth":"S","notifications":[{"inbox_days":1},{"inbox_days":2}]}}"#,
                ["in.json#request.notifications[0]", "in.json#request.notifications[1]"],
                [.createMessage, .createMessage]
            )),
        Named(
            "request body without wrapper",
            (#"{"notifications":[{"inbox_days":1}]}"#, ["in.json#notifications[0]"], [.createMessage])),
        Named("single feed message", (feedLine, ["in.json"], [.feed])),
        Named("single push payload", (pushLine, ["in.json"], [.push])),
        Named("array, mixed shapes", ("[\(feedLine),\(pushLine)]", ["in.json#[0]", "in.json#[1]"], [.feed, .push])),
        Named("NDJSON", ("\(feedLine)\n\(pushLine)\n", ["in.json#[0]", "in.json#[1]"], [.feed, .push])),
        Named(
            "NDJSON with CRLF and blank lines",
            ("\(feedLine)\r\n\r\n\(pushLine)\r\n", ["in.json#[0]", "in.json#[1]"], [.feed, .push])),
        Named(
            "request inside an array",
            (
                #"[{"request":{"notifications":[{"inbox_days":1},{"inbox_days":2}]}}]"#,
                ["in.json#[0].request.notifications[0]", "in.json#[0].request.notifications[1]"],
                [.createMessage, .createMessage]
            )),
        Named("feed list", (#"{"messages":[\#(feedLine)]}"#, ["in.json#messages[0]"], [.feed])),
        Named(
            "feed API response",
            (#"{"status_code":200,"response":{"messages":[\#(feedLine)]}}"#, ["in.json#response.messages[0]"], [.feed])),
        Named(
            "a notification on its own",
            (#"{"ios_title":"T","content":"B","inbox_days":3}"#, ["in.json"], [.createMessage])),
        Named(
            "an array of notifications",
            (
                #"[{"content":"B","inbox_image":"https://cdn.example.com/a.png"},{"send_date":"now","inbox_days":1}]"#,
                ["in.json#[0]", "in.json#[1]"], [.createMessage, .createMessage]
            )),
    ]

    @Test(arguments: rows)
    func shape(_ row: Named<(String, [String], [MessageShape])>) throws {
        let batch = try read(row.value.0)
        #expect(batch.messages.map(\.id) == row.value.1)
        #expect(batch.messages.map(\.shape) == row.value.2)
        #expect(!batch.findings.contains { $0.finding.severity == .error })
    }

    @Test func pushFields() throws {
        let message = try #require(try read(pushLine).messages.first)
        #expect(message.code == "p1")
        #expect(message.title?.plain == "T")
        #expect(message.body?.plain == "B")
        #expect(message.imageURL == "https://cdn.example.com/inbox/p.png")
        #expect(message.customDataForm == .jsonString)
        let card = try #require(CardResolver().resolve([message]).first)
        #expect(card.resolved == .banner)
        #expect(card.assets.first?.path == "inbox_params.image")
    }

    @Test func pushLanguageFindingsPointAtTheAlert() throws {
        let push =
            #"{"pw_inbox":"p","inbox_params":{"rt":"2099-12-31"},"aps":{"alert":{"title":{"de":"Hallo"},"body":{"en":"Hi"}}}}"#
        let batch = try read(push)
        let cards = CardResolver().resolve(batch.messages)
        #expect(cards.map(\.language) == ["de", "en"])
        #expect(cards[1].finding("card.languageMissing")?.path == "aps.alert.title")
        #expect(cards[0].finding("card.languageFallback")?.path == "aps.alert.body")
    }

    @Test func pushAlertStringIsTheBody() throws {
        let message = try #require(
            try read(#"{"pw_inbox":"p","inbox_params":{"rt":"2099-12-31"},"aps":{"alert":"Hello"}}"#).messages.first)
        #expect(message.title == nil)
        #expect(message.body?.plain == "Hello")
    }

    @Test func feedFields() throws {
        let message = try #require(try read(feedLine).messages.first)
        #expect(message.code == "a1")
        #expect(message.imageURL == "https://cdn.example.com/inbox/a.png")
        #expect(message.body?.plain == "B")
    }

    @Test func stdinAndSeveralFiles() throws {
        var batch = try read("[\(feedLine)]", source: "-")
        batch.append(try read(pushLine, source: "push.json"))
        #expect(batch.sources == ["-", "push.json"])
        #expect(batch.messages.map(\.id) == ["-#[0]", "push.json"])
    }

    @Test func uAsObjectInFeed() throws {
        let message = Input.feed(image: "https://cdn.example.com/a.png", params: ["u": ["displayType": "banner"]])
        let card = try feedCard(message)
        #expect(card.resolved == .banner)
    }

    @Test func actionParamsObjectMeansNoActionParams() throws {
        let message = Input.feed(
            image: "https://cdn.example.com/a.png", params: ["displayType": "carousel", "pinned": true], encode: false)
        let card = try feedCard(message)
        #expect(card.has("input.actionParamsObject"))
        #expect(card.requested == .captioned, "displayType is not seen: the heuristic decides")
        #expect(!card.pinned)
    }

    @Test func authIsNeverKept() throws {
        let batch = try CampaignReader.read(bytes: Input.request([Input.notification()]), source: "c.json")
        let run = CardResolver().run(batch)
        #expect(!String(reflecting: batch).contains("SECRET-AUTH-TOKEN"))
        #expect(String(describing: batch.messages[0]) == "c.json#request.notifications[0] (createMessage, code ?)")
        #expect(!run.json.serialized().contains("SECRET-AUTH-TOKEN"))
    }
}

/// Bad input: never a crash; whole-input problems throw `InputError`, the rest are findings.
@Suite struct BadInputTests {
    static let fatal: [Named<(String, String)>] = [
        Named("empty", ("", "empty input")),
        Named("whitespace", (" \n\t\n", "empty input")),
        Named("syntax error", ("{\"request\": }", "line 1, column 13")),
        Named(
            "syntax error on line 3", ("{\n  \"request\": {\n    \"notifications\": [1,,2]\n  }\n}", "line 3, column")),
        Named("not JSON at all", ("hello world", "line 1, column 1")),
        Named("top-level number", ("42", "top-level JSON number")),
        Named("top-level string", ("\"campaign\"", "top-level JSON string")),
        Named("every NDJSON line broken", ("{\"a\":\n{\"b\":\n", "line 1")),
    ]

    @Test(arguments: fatal)
    func fatalInput(_ row: Named<(String, String)>) {
        #expect {
            _ = try CampaignReader.read(bytes: Array(row.value.0.utf8), source: "bad.json")
        } throws: { error in
            guard let error = error as? InputError else { return false }
            let finding = error.finding
            return error.description.hasPrefix("bad.json: ") && error.description.contains(row.value.1)
                && finding.source == "bad.json" && finding.finding.severity == .error
                && finding.finding.code.hasPrefix("input.") && finding.finding.message.contains(row.value.1)
        }
    }

    @Test func invalidUTF8IsAnErrorWithPosition() {
        let bytes: [UInt8] = Array(#"{"title":""#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8)
        #expect {
            _ = try CampaignReader.read(bytes: bytes, source: "bad.json")
        } throws: { error in
            guard let error = error as? InputError, case .invalidJSON(let parse) = error.kind else { return false }
            return parse.kind == .invalidUTF8 && parse.line == 1 && parse.column == 11
        }
    }

    @Test func deepNestingIsAnError() {
        let bytes =
            Array(repeating: UInt8(ascii: "["), count: 10_000) + Array(repeating: UInt8(ascii: "]"), count: 10_000)
        #expect {
            _ = try CampaignReader.read(bytes: bytes, source: "deep.json")
        } throws: { error in
            guard let error = error as? InputError, case .invalidJSON(let parse) = error.kind else { return false }
            return parse.kind == .tooDeep(512)
        }
    }

    @Test func deepNestingInsideUIsAFinding() throws {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        let card = try feedCard(Input.feed(params: ["u": .string(deep)]))
        #expect(card.has("input.customDataInvalid"))
    }

    @Test func tooLargeIsRefusedBeforeParsing() {
        let bytes = Input.request([Input.notification()])
        #expect {
            _ = try CampaignReader.read(bytes: bytes, source: "big.json", options: ReaderOptions(maxInputBytes: 64))
        } throws: { error in
            (error as? InputError)?.kind == .tooLarge(limit: 64)
        }
    }

    @Test func fiftyMegabyteFileIsRead() throws {
        let body = JSONValue.string(String(repeating: "x", count: 50 << 20))
        let bytes = Input.request([Input.notification(body: body)])
        #expect(bytes.count > 50 << 20)
        let cards = try resolve(bytes)
        #expect(cards.count == 1)
        #expect(cards[0].resolved == .classic)
    }

    @Test func brokenNDJSONLineDoesNotStopTheOthers() throws {
        let text =
            "\(feedLine)\n{\"inbox_id\": \"x\",\"order\": 1, \"rt\": 4102444800, \"action_type\": 0, \"status\": 1,  \n\(pushLine)\n"
        let batch = try read(text)
        #expect(batch.messages.map(\.id) == ["in.json#[0]", "in.json#[2]"])
        let finding = try #require(batch.finding("input.invalidJSON"))
        #expect(finding.source == "in.json#[1]")
        #expect(finding.finding.severity == .error)
        #expect(finding.finding.message.contains("line 2, column"))
    }

    @Test func invalidUTF8OnOneNDJSONLine() throws {
        let bytes =
            Array("\(feedLine)\n".utf8) + [UInt8(ascii: "{"), 0xC3, 0x28, UInt8(ascii: "}"), 0x0A]
            + Array(pushLine.utf8)
        let batch = try CampaignReader.read(bytes: bytes, source: "in.json")
        #expect(batch.messages.count == 2)
        #expect(batch.finding("input.invalidJSON")?.finding.message.contains("invalid UTF-8") == true)
    }

    static let perMessage: [Named<(JSONValue, String, String)>] = [
        Named("unrecognised object", (["hello": "world"], "input.unrecognized", "")),
        Named("array element not an object", ([1], "input.notObject", "[0]")),
        Named("request not an object", (["request": "x"], "input.wrongType", "request")),
        Named(
            "notifications not an array",
            (["request": ["notifications": "x"]], "input.wrongType", "request.notifications")),
        Named(
            "notification not an object",
            (["request": ["notifications": [5]]], "input.notObject", "request.notifications[0]")),
        Named(
            "request without notifications",
            (["request": ["application": "A"]], "input.unrecognized", "request.notifications")),
        Named("empty array", ([], "input.noMessages", "")),
    ]

    @Test(arguments: perMessage)
    func inputFinding(_ row: Named<(JSONValue, String, String)>) throws {
        let batch = try CampaignReader.read(bytes: Input.bytes(row.value.0), source: "bad.json")
        let finding = try #require(batch.finding(row.value.1), "\(batch.findings)")
        #expect(finding.finding.path ?? "" == row.value.2)
        #expect(finding.source == (row.value.2.isEmpty ? "bad.json" : "bad.json#\(row.value.2)"))
    }

    static let wrongFields: [Named<(JSONValue, String, String)>] = [
        Named("title 5", (Input.notification(title: 5), "input.wrongType", "request.notifications[0].ios_title")),
        Named("content []", (Input.notification(body: []), "input.wrongType", "request.notifications[0].content")),
        Named(
            "inbox_image 5", (Input.notification(image: 5), "input.wrongType", "request.notifications[0].inbox_image")),
        Named("data 5", (Input.notification(data: 5), "input.customDataInvalid", "request.notifications[0].data")),
        Named(
            "data not JSON",
            (Input.notification(data: "{nope"), "input.customDataInvalid", "request.notifications[0].data")),
        Named(
            "data JSON array",
            (Input.notification(data: "[1]"), "input.customDataInvalid", "request.notifications[0].data")),
        Named(
            "per-language object empty",
            (Input.notification(title: [:]), "input.wrongType", "request.notifications[0].ios_title")),
    ]

    @Test(arguments: wrongFields)
    func wrongField(_ row: Named<(JSONValue, String, String)>) throws {
        let card = try card(row.value.0)
        #expect(card.finding(row.value.1)?.path == row.value.2, "\(card.findings)")
    }

    static let feedParams: [Named<(JSONValue, String)>] = [
        Named(
            "action_params not JSON",
            (Input.feed(params: nil).withMember("action_params", "{oops"), "input.actionParamsInvalid")),
        Named(
            "action_params JSON array",
            (Input.feed(params: nil).withMember("action_params", "[]"), "input.actionParamsInvalid")),
        Named(
            "action_params a number",
            (Input.feed(params: nil).withMember("action_params", 7), "input.actionParamsInvalid")),
        Named("u not JSON", (Input.feed(params: ["u": "{bad"]), "input.customDataInvalid")),
        Named("u a number", (Input.feed(params: ["u": 5]), "input.customDataInvalid")),
        Named("userdata a string", (Input.feed(params: ["userdata": "x"]), "input.wrongType")),
        Named("aps a string", (["pw_inbox": "p", "aps": "x"], "input.wrongType")),
        Named("inbox_params a string", (["pw_inbox": "p", "inbox_params": "x"], "input.wrongType")),
    ]

    @Test(arguments: feedParams)
    func feedAndPushFields(_ row: Named<(JSONValue, String)>) throws {
        // Reading findings belong to the message (and so to each of its cards); a push without inbox_params.rt has
        // no iOS card, so the message is checked, not a card.
        let batch = try CampaignReader.read(bytes: Input.bytes(row.value.0), source: "campaign.json")
        let message = try #require(batch.messages.first)
        #expect(message.findings.contains { $0.code == row.value.1 }, "\(message.findings)")
    }

    @Test func duplicateKeyAndBOMAreReported() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array(#"{"inbox_id":"a","inbox_id":"b"}"#.utf8)
        let batch = try CampaignReader.read(bytes: bytes, source: "in.json")
        #expect(batch.has("input.byteOrderMark"))
        #expect(batch.has("input.duplicateKey"))
        #expect(batch.messages.first?.code == "b")
    }
}

extension JSONValue {
    func withMember(_ key: String, _ value: JSONValue) -> JSONValue {
        guard case .object(var object) = self else { return self }
        object[key] = value
        return .object(object)
    }
}

/// Hostile input cannot make unbounded findings.
@Suite struct FindingBudgetTests {
    @Test func tenThousandBrokenSlides() throws {
        let slides = JSONValue.array(Array(repeating: 5, count: 10_000))
        let card = try card(Input.notification(data: ["displayType": "carousel", "carousel": slides]))
        #expect(card.findings.count <= FindingBudget.perCard + FindingBudget.essential.count + 1)
        #expect(card.has("card.degraded"), "essential findings survive the budget")
        #expect(card.finding("card.findingsTruncated")?.message.hasPrefix("99") == true)
    }

    @Test func thousandsOfBrokenLines() throws {
        let text = feedLine + "\n" + String(repeating: "{x\n", count: 5_000)
        let batch = try CampaignReader.read(bytes: Array(text.utf8), source: "in.ndjson")
        #expect(batch.messages.count == 1)
        #expect(batch.findings.count == FindingBudget.perInput + 1)
        #expect(batch.findings.last?.finding.code == "input.findingsTruncated")
        #expect(batch.findings.last?.finding.message.hasPrefix("4000 more") == true)
    }

    @Test func thousandsOfWrongLanguageValues() throws {
        var title = JSONObject([("en", "Sale")])
        for index in 0..<1_000 { title["l\(index)"] = 5 }
        let card = try card(Input.notification(title: .object(title)))
        #expect(card.findings.filter { $0.code == "input.wrongType" }.count == FindingBudget.perMessage)
        #expect(card.has("input.findingsTruncated"))
    }
}

/// ``CampaignReader/read(bytes:source:options:observer:)`` hands the messages out as they are read, in every input
/// shape: together the slices are the batch's messages, in order, each of them once.
@Suite struct ReaderObserverTests {
    static let shapes: [Named<(String, Int)>] = [
        Named(
            "createMessage request",
            (
                "{\"request\":{\"notifications\":["
                    + Array(repeating: #"{"inbox_days":1}"#, count: 600).joined(separator: ",")
                    + "]}}", 600
            )),
        Named(
            "feed list", ("{\"messages\":[" + Array(repeating: feedLine, count: 300).joined(separator: ",") + "]}", 300)
        ),
        Named("NDJSON", (Array(repeating: pushLine, count: 257).joined(separator: "\n"), 257)),
        Named("one message", (feedLine, 1)),
        Named("no message", ("{\"request\":{\"notifications\":[]}}", 0)),
    ]

    @Test(arguments: shapes)
    func theObserverSeesEveryMessageOnceInOrder(_ shape: Named<(String, Int)>) throws {
        let (text, count) = shape.value
        var slices: [[String]] = []
        let batch = try CampaignReader.read(bytes: Array(text.utf8), source: "in.json") { messages in
            slices.append(messages.map(\.id))
        }
        #expect(batch.messages.count == count)
        #expect(slices.flatMap { $0 } == batch.messages.map(\.id))
        // Full slices while reading, the rest at the end.
        let full = count / CampaignReader.observedBatch
        #expect(slices.count == full + (count % CampaignReader.observedBatch == 0 ? 0 : 1))
        #expect(slices.prefix(full).allSatisfy { $0.count == CampaignReader.observedBatch })
    }
}
