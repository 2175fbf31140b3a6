import Preflight
import Testing

@Suite struct ShardTests {
    @Test(
        arguments: [
            ("1/1", Shard(1, of: 1)), ("2/4", Shard(2, of: 4)), ("4/4", Shard(4, of: 4)), ("0/4", nil), ("5/4", nil),
            ("1/0", nil), ("-1/4", nil), ("1/-4", nil), ("1/2/3", nil), ("1", nil), ("+1/2", Shard(1, of: 2)),
            ("1/1000001", nil), ("١/٢", nil),
        ] as [(String, Shard?)])
    func parsing(text: String, expected: Shard?) {
        #expect(Shard(parsing: text) == expected)
    }

    @Test(arguments: [1, 2, 3, 16])
    func everyURLBelongsToExactlyOneShard(count: Int) {
        let urls = (0..<500).map { "https://cdn.example.com/img/\($0).png?v=\($0 % 7)" }
        let shards = (1...count).map { Shard($0, of: count)! }
        for url in urls {
            #expect(shards.filter { $0.contains(url) }.count == 1, "\(url)")
        }
        // No shard is empty for 500 URLs: the digest spreads them.
        for shard in shards { #expect(urls.contains { shard.contains($0) }, "\(shard)") }
    }
}
