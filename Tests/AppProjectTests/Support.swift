import AppProject
import Foundation
import Testing

/// A temporary directory tree for one test, removed when the test ends (`defer { tree.remove() }`).
struct TempTree {
    let root: String

    init(_ label: String = "app") throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("app-project-\(label)-\(UUID())").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    /// `root/relative`.
    func path(_ relative: String) -> String { (root as NSString).appendingPathComponent(relative) }

    func write(_ relative: String, _ text: String) throws { try write(relative, bytes: Array(text.utf8)) }

    func write(_ relative: String, bytes: [UInt8]) throws {
        let full = path(relative)
        try FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: full))
    }

    func remove() { try? FileManager.default.removeItem(atPath: root) }
}

/// What a read that must fail says: words its reason holds, and the line it names.
struct Refusal: Sendable, CustomStringConvertible {
    enum Line: Sendable, Equatable {
        /// The error names no line.
        case none
        /// The error names some line.
        case some
        case at(Int)
    }

    var reason: [String]
    var line: Line = .some
    /// Text that must never appear in the error (a file's content, say).
    var never: [String] = []

    var description: String { reason.joined(separator: " … ") }

    /// Records an issue for each way `error` differs from this.
    func check(_ error: AppFileError, file: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(error.file == file, sourceLocation: sourceLocation)
        for word in reason {
            #expect(error.reason.contains(word), "'\(word)' not in: \(error)", sourceLocation: sourceLocation)
        }
        switch line {
        case .none: #expect(error.line == nil, "\(error)", sourceLocation: sourceLocation)
        case .some: #expect(error.line != nil, "\(error)", sourceLocation: sourceLocation)
        case .at(let number): #expect(error.line == number, "\(error)", sourceLocation: sourceLocation)
        }
        for text in never {
            #expect(!error.description.contains(text), "\(error)", sourceLocation: sourceLocation)
        }
    }
}

/// `body` must throw an ``AppFileError``; it is returned (nil, with an issue recorded, when it does not throw).
func appFileError<T>(
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws(AppFileError) -> T
) -> AppFileError? {
    do {
        let value = try body()
        Issue.record("expected an AppFileError, got \(value)", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

extension String {
    var bytes: [UInt8] { Array(utf8) }

    /// UTF-16LE with a byte order mark: a legal XML encoding.
    var utf16LE: [UInt8] {
        var out: [UInt8] = [0xFF, 0xFE]
        for unit in utf16 { out += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        return out
    }
}
