import ArgumentKit
import Testing

struct ByteSizeTests {
    @Test(arguments: [
        ("0", 0), ("1234", 1_234), ("1234B", 1_234), ("64k", 65_536), ("64KB", 65_536), ("64KiB", 65_536),
        ("500M", 524_288_000), ("10MB", 10_485_760), ("2g", 2_147_483_648), ("1T", 1_099_511_627_776),
    ])
    func parsesPowersOf1024(text: String, bytes: Int) {
        #expect(ByteSize.parse(text) == bytes)
    }

    @Test(arguments: [
        "", "M", "-1", "1.5G", "12 M", "ten", "9999999999999999999", "9999999999T", "1X", "1MM", "0x10", "1e400",
    ])
    func rejectsAnythingElse(text: String) {
        #expect(ByteSize.parse(text) == nil)
    }
}
