import InboxCards
import Preflight
import Testing

@Suite struct ResolveJobTests {
    static let inputs: [(name: String, bytes: [UInt8])] = [
        (
            "a.ndjson",
            Array(#"{"inbox_id":"1","order":1,"rt":4102444800,"action_type":0,"status":1,"title":"T","text":"B"}"#.utf8)
                + [0x0A] + Array(#"{"inbox_id":"2"}"#.utf8)
        ),
        ("b.json", Array(#"{"pw_inbox":"3","inbox_params":{"rt":"2099-12-31"},"aps":{"alert":"hi"}}"#.utf8)),
    ]

    /// Messages are handed back only when asked for (the CLI keeps them to exit without freeing them).
    @Test func messagesAreKeptOnlyWhenAsked() {
        let job = ResolveJob(options: ResolveOptions())
        let plain = job.run(Self.inputs)
        #expect(plain.messages.isEmpty)
        let kept = job.run(Self.inputs, keepingMessages: true)
        #expect(kept.messages.map(\.id) == ["a.ndjson#[0]", "a.ndjson#[1]", "b.json"])
        #expect(kept.run == plain.run)
    }
}
