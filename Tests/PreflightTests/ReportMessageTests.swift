import StrictJSON
import TestSupport
import Testing

@testable import Preflight

/// `ReportMessage`: how a message's cards become one element of the JSON report's `messages`, and that the cards
/// can be read back whole (`CheckReportJSON.cards(of:)`, the README's jq line).
@Suite struct ReportMessageTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        /// The cards, as the null-omitting writer gives them.
        let cards: [String]
        let expected: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "one card: everything on the message but platform and sdks",
            cards: [#"{"id":"f#[0]","code":"m","sdk":"7.2","platform":"ios","resolved":"banner","findings":[]}"#],
            expected:
                #"{"id":"f#[0]","code":"m","resolved":"banner","findings":[],"cards":[{"sdks":["7.2"],"platform":"ios"}]}"#
        ),
        Case(
            name: "cards that differ only in sdk are one entry",
            cards: [
                #"{"id":"f#[0]","sdk":"6.12","platform":"android","broken":true}"#,
                #"{"id":"f#[0]","sdk":"6.13","platform":"android","broken":true}"#,
                #"{"id":"f#[0]","sdk":"6.15","platform":"android","broken":true}"#,
            ],
            expected: #"{"id":"f#[0]","broken":true,"cards":[{"sdks":["6.12","6.13","6.15"],"platform":"android"}]}"#
        ),
        Case(
            name: "what differs stays on the entries, what all share moves up",
            cards: [
                #"{"id":"f#[1]","sdk":"7.2","platform":"ios","resolved":"banner","degraded":false,"title":"T"}"#,
                #"{"id":"f#[1]","sdk":"6.11","platform":"android","resolved":"legacy","degraded":true,"degradeReason":"r","title":"T"}"#,
                #"{"id":"f#[1]","sdk":"6.12","platform":"android","resolved":"banner","degraded":false,"title":"T"}"#,
                #"{"id":"f#[1]","sdk":"6.13","platform":"android","resolved":"banner","degraded":false,"title":"T"}"#,
            ],
            expected:
                #"{"id":"f#[1]","title":"T","cards":[{"sdks":["7.2"],"platform":"ios","resolved":"banner","degraded":false},"#
                + #"{"sdks":["6.11"],"platform":"android","resolved":"legacy","degraded":true,"degradeReason":"r"},"#
                + #"{"sdks":["6.12","6.13"],"platform":"android","resolved":"banner","degraded":false}]}"#
        ),
        Case(
            name: "per-language cards of one profile",
            cards: [
                #"{"id":"f#[2]","sdk":"7.2","platform":"ios","language":"en","title":"Hi","feedPosition":3}"#,
                #"{"id":"f#[2]","sdk":"7.2","platform":"ios","language":"es","title":"Hola","feedPosition":3}"#,
            ],
            expected:
                #"{"id":"f#[2]","feedPosition":3,"cards":[{"sdks":["7.2"],"platform":"ios","language":"en","title":"Hi"},"#
                + #"{"sdks":["7.2"],"platform":"ios","language":"es","title":"Hola"}]}"#
        ),
        Case(
            name: "a member one card lacks (null) is not shared",
            cards: [
                #"{"id":"f#[3]","sdk":"7.2","platform":"ios","title":"T"}"#,
                #"{"id":"f#[3]","sdk":"6.13","platform":"android"}"#,
            ],
            expected:
                #"{"id":"f#[3]","cards":[{"sdks":["7.2"],"platform":"ios","title":"T"},{"sdks":["6.13"],"platform":"android"}]}"#
        ),
        Case(
            name: "a card without an sdk (null) keeps its place as null",
            cards: [#"{"id":"f#[4]","platform":"ios","buttons":[1,{"y":"}"}]}"#],
            expected: #"{"id":"f#[4]","buttons":[1,{"y":"}"}],"cards":[{"sdks":[null],"platform":"ios"}]}"#
        ),
        Case(
            name: "sdk last",
            cards: [#"{"id":"f#[5]","platform":"ios","sdk":"7.0"}"#, #"{"id":"f#[5]","platform":"ios","sdk":"7.1"}"#],
            expected: #"{"id":"f#[5]","cards":[{"platform":"ios","sdks":["7.0","7.1"]}]}"#
        ),
    ]

    /// The message of `cards`, each written member by member as a card writer writes it.
    static func text(_ cards: [String]) throws -> String {
        var message = ReportMessage()
        for card in cards {
            let value = try JSON.parse(Array(card.utf8))
            message.add(id: "m") { writer in
                writer.beginObject()
                for (key, member) in value.objectValue ?? JSONObject() {
                    writer.key(string: key)
                    writer.value(member)
                }
                writer.endObject()
            }
        }
        var text = ""
        message.serialize { text = String(decoding: $0, as: UTF8.self) }
        return text
    }

    @Test(arguments: cases)
    func cardsBecomeOneMessage(_ row: Case) throws {
        let text = try Self.text(row.cards)
        #expect(text == row.expected)
        // Read back: every card, in order, with its members (a card's member order aside).
        let report = JSONValue.object(
            JSONObject([("assets", .object(JSONObject())), ("messages", [try JSON.parse(Array(text.utf8))])]))
        let cards = try row.cards.map { try JSON.parse(Array($0.utf8)) }
        let back = CheckReportJSON.cards(of: report)
        #expect(back.count == cards.count)
        for (read, card) in zip(back, cards) {
            for (key, value) in card.objectValue ?? JSONObject() { #expect(read[key] == value, "\(key)") }
            for (key, value) in read.objectValue ?? JSONObject() where card[key] == nil {
                #expect(value == .null || value == .array([]), "\(key) is null when the card left it out")
            }
        }
    }

    @Test func removeAllStartsAgain() throws {
        var message = ReportMessage()
        message.add(id: "a") { writer in
            writer.beginObject()
            writer.key("id")
            writer.string("a")
            writer.endObject()
        }
        #expect(!message.isEmpty && message.id == "a")
        message.removeAll()
        #expect(message.isEmpty && message.id == nil)
        // The next message starts from nothing: none of the first one's members.
        message.add(id: "b") { writer in
            writer.beginObject()
            writer.key("id")
            writer.string("b")
            writer.key("sdk")
            writer.string("7.2")
            writer.endObject()
        }
        var text = ""
        message.serialize { text = String(decoding: $0, as: UTF8.self) }
        #expect(text == #"{"id":"b","cards":[{"sdks":["7.2"]}]}"#)
    }
}
