import AssetStore
import Foundation
import Testing

struct CacheControlCase: Sendable, CustomTestStringConvertible {
    var header: String?
    var maxAge: Int?
    var noStore = false
    var noCache = false
    var testDescription: String { header.map { "Cache-Control: \($0)" } ?? "no Cache-Control" }
}

struct DecisionCase: Sendable, CustomTestStringConvertible {
    var name: String
    var cacheControl: String?
    var etag: String?
    var lastModified: String?
    var age: TimeInterval
    var expected: Expected
    enum Expected: Sendable { case fresh, revalidate([String]), refetch }
    var testDescription: String { name }
}

struct FreshnessTests {
    @Test(arguments: [
        CacheControlCase(header: nil, maxAge: nil),
        CacheControlCase(header: "", maxAge: nil),
        CacheControlCase(header: "max-age=600", maxAge: 600),
        CacheControlCase(header: "public, MAX-AGE=60 , must-revalidate", maxAge: 60),
        CacheControlCase(header: "max-age=\"120\"", maxAge: 120),
        CacheControlCase(header: "max-age=10, max-age=99999", maxAge: 10),
        CacheControlCase(header: "max-age=-5", maxAge: 0),
        CacheControlCase(header: "max-age=soon", maxAge: 0),
        CacheControlCase(header: "max-age=", maxAge: 0),
        CacheControlCase(header: "max-age=99999999999999999999999", maxAge: Int.max),
        CacheControlCase(header: "no-store", maxAge: nil, noStore: true),
        CacheControlCase(header: "private, no-cache, max-age=300", maxAge: 300, noCache: true),
        CacheControlCase(header: ",,;=,=x", maxAge: nil),
        CacheControlCase(header: "=", maxAge: nil),
        CacheControlCase(header: "no-store=,=,max-age", maxAge: 0, noStore: true),
    ])
    func parsesCacheControl(_ testCase: CacheControlCase) {
        let parsed = CacheControl(testCase.header)
        #expect(parsed.maxAge == testCase.maxAge)
        #expect(parsed.noStore == testCase.noStore)
        #expect(parsed.noCache == testCase.noCache)
        #expect(CacheControl.mayStore(testCase.header) == !testCase.noStore)
    }

    static let etag = "W/\"abc\""
    static let modified = "Wed, 21 Oct 2026 07:28:00 GMT"

    @Test(arguments: [
        DecisionCase(
            name: "within max-age", cacheControl: "max-age=600", etag: etag, lastModified: nil, age: 599,
            expected: .fresh),
        DecisionCase(
            name: "max-age just expired", cacheControl: "max-age=600", etag: etag, lastModified: modified, age: 600,
            expected: .revalidate(["If-None-Match: W/\"abc\"", "If-Modified-Since: \(modified)"])),
        DecisionCase(
            name: "no max-age, Last-Modified only", cacheControl: nil, etag: nil, lastModified: modified, age: 1,
            expected: .revalidate(["If-Modified-Since: \(modified)"])),
        DecisionCase(
            name: "no-cache revalidates even when young", cacheControl: "no-cache, max-age=600", etag: etag,
            lastModified: nil, age: 1, expected: .revalidate(["If-None-Match: W/\"abc\""])),
        DecisionCase(
            name: "stale without validators", cacheControl: "max-age=5", etag: nil, lastModified: nil, age: 10,
            expected: .refetch),
        DecisionCase(
            name: "no-store is never used", cacheControl: "no-store, max-age=600", etag: etag, lastModified: nil,
            age: 1, expected: .refetch),
        DecisionCase(
            name: "clock went backwards", cacheControl: "max-age=60", etag: etag, lastModified: nil, age: -3_600,
            expected: .fresh),
        DecisionCase(
            name: "invalid max-age is stale", cacheControl: "max-age=abc", etag: etag, lastModified: nil, age: 0,
            expected: .revalidate(["If-None-Match: W/\"abc\""])),
    ])
    func decidesWhatToDo(_ testCase: DecisionCase) throws {
        let blob = try #require(BlobRef(sha256: String(repeating: "0", count: 64), size: 1))
        let fetchedAt = Date(timeIntervalSince1970: 1_790_000_000)
        let stored = StoreEntry(
            blob: blob, contentType: "image/png", etag: testCase.etag, lastModified: testCase.lastModified,
            cacheControl: testCase.cacheControl, fetchedAt: fetchedAt)
        let decision = stored.cacheDecision(at: fetchedAt.addingTimeInterval(testCase.age))
        switch (testCase.expected, decision) {
        case (.fresh, .fresh(let until)):
            #expect(stored.isFresh(at: fetchedAt.addingTimeInterval(testCase.age)))
            #expect(until == stored.freshUntil)
        case (.revalidate(let expected), .revalidate(let headers)):
            #expect(headers.map { "\($0.name): \($0.value)" } == expected)
            #expect(!stored.isFresh(at: fetchedAt.addingTimeInterval(testCase.age)))
        case (.refetch, .refetch(let reason)):
            #expect(!reason.isEmpty)
        default:
            Issue.record("expected \(testCase.expected), got \(decision)")
        }
    }

    @Test func entryFromResponseHeaders() throws {
        let blob = try #require(BlobRef(sha256: String(repeating: "1", count: 64), size: 9))
        let headers = [
            ("content-type", "image/jpeg"), ("ETag", " \"x1\" "), ("X-Other", "y"), ("Cache-Control", "public"),
            ("LAST-MODIFIED", "Tue, 01 Dec 2026 00:00:00 GMT"), ("cache-control", "max-age=60"),
        ].map { HTTPHeaderField(name: $0.0, value: $0.1) }
        let fetchedAt = Date(timeIntervalSince1970: 1_790_000_000)
        let made = StoreEntry(blob: blob, headers: headers, httpStatus: 200, fetchedAt: fetchedAt)
        #expect(made.contentType == "image/jpeg" && made.etag == "\"x1\"")
        #expect(made.lastModified == "Tue, 01 Dec 2026 00:00:00 GMT")
        #expect(made.cacheControl == "public, max-age=60" && made.cacheDirectives.maxAge == 60)
        let bare = StoreEntry(blob: blob, headers: [], httpStatus: 203, fetchedAt: fetchedAt)
        #expect(bare.contentType == nil && bare.etag == nil && bare.cacheControl == nil && bare.httpStatus == 203)
        #expect(
            bare.cacheDecision(at: fetchedAt) == .refetch(reason: "stale and no ETag or Last-Modified to revalidate"))
    }

    @Test func revalidationRewritesOnlyTheRecord() throws {
        let directory = TemporaryDirectory()
        let store = try AssetStore(directory: directory.path)
        let url = "https://cdn.test/banner.webp"
        let blob = try store.put(bytes: pseudoRandomBytes(5_000, seed: 5))
        let fetchedAt = Date(timeIntervalSince1970: 1_790_000_000)
        try store.record(url: url, entry: entry(blob, etag: "\"v1\"", cacheControl: "max-age=60", fetchedAt: fetchedAt))
        let blobPath = store.blobPath(blob.sha256)
        let before = try FileManager.default.attributesOfItem(atPath: blobPath)
        let objectsBefore = try store.stats()

        let later = fetchedAt.addingTimeInterval(120)
        let updated = try #require(try store.revalidated(url, at: later, cacheControl: "max-age=300"))
        #expect(updated.fetchedAt == later)
        #expect(updated.etag == "\"v1\"")
        #expect(updated.cacheControl == "max-age=300")
        #expect(updated.blob == blob)
        #expect(try store.lookup(url) == updated)
        #expect(updated.isFresh(at: later.addingTimeInterval(299)))

        let after = try FileManager.default.attributesOfItem(atPath: blobPath)
        #expect(before[.modificationDate] as? Date == after[.modificationDate] as? Date)
        #expect(before[.systemFileNumber] as? Int == after[.systemFileNumber] as? Int)
        let objectsAfter = try store.stats()
        #expect(objectsAfter.blobs == objectsBefore.blobs && objectsAfter.bytes == objectsBefore.bytes)
        #expect(objectsAfter.records == objectsBefore.records + 1)
        #expect(try store.revalidated("https://unknown.test/", at: later) == nil)
    }
}
