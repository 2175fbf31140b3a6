import Foundation
import HTTPFetch
import TestSupport
import Testing

@Suite("HTTP/2 against nginx", .ownThread)
struct HTTP2Tests {
    /// 120 files of 1–24 KB with their SHA-256 (by coreutils' sha256sum, not the engine's OpenSSL).
    private static func site() async throws -> (server: Nginx, hashes: [String: String]) {
        var generator = SystemRandomNumberGenerator()
        var files: [String: [UInt8]] = [:]
        for index in 0..<120 {
            let size = Int.random(in: 1_024...24_576, using: &generator)
            files["img/f-\(index).png"] = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
        }
        let server = try await Nginx(files: files)
        let paths = files.keys.sorted()
        let output = try await Child.run("/usr/bin/sha256sum", paths.map { server.root + "/" + $0 }).output
        var hashes: [String: String] = [:]
        for (path, line) in zip(paths, output.split(separator: "\n")) { hashes[path] = String(line.prefix(64)) }
        return (server, hashes)
    }

    @Test(
        "Multiplexed GETs on reused handles: every transfer is HTTP/2, ok, and hashes like sha256sum",
        arguments: [1, 16])
    func multiplexedGets(concurrency: Int) async throws {
        let (server, hashes) = try await Self.site()
        let engine = try FetchEngine(
            options: FetchOptions(
                concurrency: concurrency, hostConcurrency: concurrency, timeout: 10, retries: 0,
                caFile: server.certificate))
        // Two rounds on one engine: the second runs entirely on easy handles and a connection already used.
        for round in 1...2 {
            let outcomes = await withTaskGroup(of: (String, FetchOutcome).self) { group in
                for path in hashes.keys { group.addTask { (path, await engine.get(server.url(path))) } }
                var outcomes: [String: FetchOutcome] = [:]
                for await (path, outcome) in group { outcomes[path] = outcome }
                return outcomes
            }
            for (path, outcome) in outcomes {
                #expect(outcome.status == .ok, "round \(round) \(path): \(outcome.errorText ?? "")")
                #expect(outcome.httpVersion == "2", "round \(round) \(path)")
                #expect(outcome.sha256 == hashes[path], "round \(round) \(path)")
            }
            #expect(outcomes.count == hashes.count)
        }
        await engine.shutdown()
        let log = try server.accessLog(atLeast: 2 * hashes.count)
        #expect(log.count == 2 * hashes.count)
        #expect(log.allSatisfy { $0.hasPrefix("HTTP/2.0 200 GET /img/") }, "\(log.prefix(3))")
    }

    @Test("Probes over HTTP/2 are HEAD requests with status, type and length, and no body")
    func multiplexedProbes() async throws {
        let (server, hashes) = try await Self.site()
        let engine = try FetchEngine(
            options: FetchOptions(
                concurrency: 16, hostConcurrency: 16, timeout: 10, retries: 0, caFile: server.certificate))
        let outcomes = await withTaskGroup(of: FetchOutcome.self) { group in
            for path in hashes.keys { group.addTask { await engine.probe(server.url(path)) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        await engine.shutdown()
        #expect(outcomes.count == hashes.count)
        for outcome in outcomes {
            #expect(outcome.status == .ok, "\(outcome.url): \(outcome.errorText ?? "")")
            #expect(outcome.httpVersion == "2")
            #expect(outcome.httpStatus == 200)
            #expect(outcome.contentType == "image/png")
            #expect((outcome.contentLength ?? 0) >= 1_024)
            #expect(outcome.sha256 == nil)
        }
        let log = try server.accessLog(atLeast: hashes.count)
        #expect(log.count == hashes.count)
        #expect(log.allSatisfy { $0.hasPrefix("HTTP/2.0 200 HEAD /img/") }, "\(log.prefix(3))")
    }
}
