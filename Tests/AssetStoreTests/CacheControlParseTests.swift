import TestSupport
import Testing

@testable import AssetStore

/// `CacheControl(_:)` reads an ASCII header on its bytes and anything else on Characters; these hold the two to the
/// same result, on the headers that are easy to get wrong and on many generated ones.
@Suite("Cache-Control: the ASCII path and the Character path agree")
struct CacheControlParseTests {
    static let tricky = [
        "", ",", ",,,", " ", "\t", "max-age=0", "MAX-AGE=60", "Max-Age = 60", " max-age=60 ", "\tmax-age=\t60\t",
        "max-age=\"60\"", "max-age=\"\"", "max-age=\"", "max-age=\"6\"0\"", "max-age='60'", "max-age=6 0", "max-age=+6",
        "max-age=-0", "max-age=0x10", "max-age=١٢", "max-age=9223372036854775807", "max-age=9223372036854775808",
        "max-age=00000000000000000000000000001", "max-age=99999999999999999999", "max-age==5", "max-age=5=6",
        "=5", "max-age", "max-age=", "no-store", "NO-STORE", "no-store=1", "nostore", "no-store,no-cache",
        "no-cache=\"set-cookie\"", "must-revalidate", "Immutable", "immutable,max-age=1", "max-age=1,max-age=2",
        "max-age=x,max-age=2", "private, max-age=300, stale-while-revalidate=60", "public,,max-age=5,,",
        "max-age=5\r\n", "max-age\u{0}=5", "max-age=5\u{0}", "\"max-age=5\"", "max-age=5;no-store",
    ]

    @Test(arguments: tricky)
    func trickyHeaders(_ header: String) {
        #expect(CacheControl(header) == CacheControl(characters: header), "\(header.debugDescription)")
    }

    @Test func generatedHeaders() {
        // A fixed seed: the same 20,000 headers every run.
        var generator = SeededGenerator(seed: 0x5EED)
        func next(_ bound: Int) -> Int { Int.random(in: 0..<bound, using: &generator) }
        let pieces = [
            "max-age", "MAX-age", "no-store", "no-cache", "No-Cache", "must-revalidate", "immutable", "private", "=",
            "=", ",", ",", " ", "\t", "\"", "0", "1", "60", "-", "99999999999999999999", "x",
        ]
        for _ in 0..<20_000 {
            let header = (0..<next(9)).map { _ in pieces[next(pieces.count)] }.joined()
            #expect(CacheControl(header) == CacheControl(characters: header), "\(header.debugDescription)")
        }
    }
}
