import Foundation
import Testing
import WalletPass

/// `pass verify DIR` walks the directory for `.pkpass` files: which entries count, and how paths are spelled.
@Suite("pass verify DIR: the directory walk")
struct PassFilesTests {
    /// One entry of the tree: a file, a directory, or a symbolic link (to `target`, relative to the link).
    enum Entry: Sendable {
        case file(String)
        case directory(String)
        case link(String, target: String)
    }

    /// A temporary tree of `entries`, removed afterwards.
    private static func tree(_ entries: [Entry], body: (String) throws -> Void) throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("passfiles-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        for entry in entries {
            switch entry {
            case .file(let path):
                let url = URL(fileURLWithPath: root + "/" + path)
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data("PK".utf8).write(to: url)
            case .directory(let path):
                try FileManager.default.createDirectory(atPath: root + "/" + path, withIntermediateDirectories: true)
            case .link(let path, let target):
                try FileManager.default.createSymbolicLink(atPath: root + "/" + path, withDestinationPath: target)
            }
        }
        try body(root)
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var entries: [Entry]
        /// The paths found, relative to the root.
        var expected: [String]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "empty directory", entries: [], expected: []),
        Case(
            name: "files at the root, sorted, other extensions ignored",
            entries: [
                .file("b.pkpass"), .file("a.pkpass"), .file("notes.txt"), .file("pkpass"), .file("x.pkpass.zip"),
            ],
            expected: ["a.pkpass", "b.pkpass"]),
        Case(
            name: "the extension in any case",
            entries: [.file("UPPER.PKPASS"), .file("Mixed.PkPass")], expected: ["Mixed.PkPass", "UPPER.PKPASS"]),
        Case(
            name: "nested directories are walked",
            entries: [.file("top.pkpass"), .file("one/two/deep.pkpass"), .file("one/mid.pkpass"), .directory("empty")],
            expected: ["one/mid.pkpass", "one/two/deep.pkpass", "top.pkpass"]),
        Case(
            name: "hidden files and hidden directories are skipped",
            entries: [.file(".hidden.pkpass"), .file(".git/inside.pkpass"), .file("seen.pkpass")],
            expected: ["seen.pkpass"]),
        Case(
            name: "a directory named like a pass is walked, not reported",
            entries: [.file("folder.pkpass/inner.pkpass")], expected: ["folder.pkpass/inner.pkpass"]),
        Case(
            name: "symbolic links are not followed, to files or to directories",
            entries: [
                .file("real/a.pkpass"), .link("alias.pkpass", target: "real/a.pkpass"),
                .link("loop", target: "."), .link("dangling.pkpass", target: "missing.pkpass"),
            ],
            expected: ["real/a.pkpass"]),
    ]

    @Test(arguments: cases)
    func walk(_ example: Case) throws {
        try Self.tree(example.entries) { root in
            #expect(PassVerifier.passFiles(under: root) == example.expected.map { root + "/" + $0 })
            // Spelled with a trailing slash, paths do not get a double one.
            #expect(PassVerifier.passFiles(under: root + "/") == example.expected.map { root + "/" + $0 })
        }
    }

    @Test("Paths keep the directory as the user spelled it")
    func spelling() throws {
        try Self.tree([.file("sub/p.pkpass")]) { root in
            #expect(PassVerifier.passFiles(under: root + "/./sub") == [root + "/./sub/p.pkpass"])
            #expect(PassVerifier.passFiles(under: root + "/sub/../sub") == [root + "/sub/../sub/p.pkpass"])
        }
    }

    /// Thousands of entries of every name length, links among them, on tmpfs when there is one: the shape of
    /// directory on which the walk once crashed (it copied each whole `struct dirent`, reading past the end of
    /// readdir's buffer when a short record ended at a page boundary). Every pass file is found, no link is.
    @Test("A directory of thousands of entries of every name length")
    func thousandsOfEntries() throws {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        let root = base + "/passfiles-many-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        var expected: [String] = []
        for index in 0..<6000 {
            let name = String(repeating: "p", count: 1 + index % 200) + "-\(index).pkpass"
            if index % 2 == 0 {
                #expect(FileManager.default.createFile(atPath: root + "/" + name, contents: Data("PK".utf8)))
                expected.append(root + "/" + name)
            } else {
                try FileManager.default.createSymbolicLink(atPath: root + "/" + name, withDestinationPath: "x")
            }
        }
        #expect(PassVerifier.passFiles(under: root) == expected.sorted())
    }

    @Test("Not a directory, or missing: no files")
    func notADirectory() throws {
        try Self.tree([.file("a.pkpass")]) { root in
            #expect(PassVerifier.passFiles(under: root + "/a.pkpass").isEmpty)
            #expect(PassVerifier.passFiles(under: root + "/missing").isEmpty)
        }
    }
}
