import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// An XML element as the app-settings readers need it: name, attributes as written (`android:usesCleartextTraffic`),
/// children, and the text directly inside (CDATA included, entities of the five predefined kinds resolved).
public struct XMLTreeNode: Sendable, Hashable {
    public var name: String
    public var attributes: [String: String]
    public var children: [XMLTreeNode]
    public var text: String
    /// The line the element starts on, for messages.
    public var line: Int

    /// The children named `name`.
    public func children(named name: String) -> [XMLTreeNode] { children.filter { $0.name == name } }

    /// An attribute by its name as written, or by its local name after any namespace prefix (`android:` is a
    /// prefix bound to a namespace; apps always write it, but a document may bind another prefix to it).
    public func attribute(_ local: String) -> String? {
        if let value = attributes[local] { return value }
        for (key, value) in attributes where key.split(separator: ":").last.map(String.init) == local {
            return value
        }
        return nil
    }
}

/// Why a settings file could not be read; `description` names the file and, when known, the line.
public struct AppFileError: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var reason: String

    public init(file: String, line: Int? = nil, reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    public var description: String { "\(file)\(line.map { ":\($0)" } ?? ""): \(reason)" }
}

/// Reads XML with the toolchain's parser (FoundationXML's `XMLParser`, libxml2 underneath) and nothing of its own:
/// external entities are never resolved (`shouldResolveExternalEntities` stays false, no DTD is loaded), and a
/// document that mentions `<!ENTITY` anywhere — in a DOCTYPE, a comment, a literal — is refused before parsing,
/// as is one that is not UTF-8 (a UTF-16 file would hide the declaration from a byte scan), so neither a file on
/// disk nor an expansion bomb ("billion laughs") can reach the settings. No app's manifest, plist or network
/// security config declares an entity; refusing a comment that mentions one costs nothing real.
public enum XMLTreeReader {
    /// Bytes past this are refused: settings files are a few KB.
    public static let maxBytes = 4 << 20
    /// Nesting past this is refused.
    public static let maxDepth = 64

    public static func parse(_ bytes: [UInt8], file: String) throws(AppFileError) -> XMLTreeNode {
        guard bytes.count <= maxBytes else {
            throw AppFileError(file: file, reason: "larger than \(maxBytes >> 20) MiB; not a settings file")
        }
        if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) || bytes.prefix(4).contains(0) {
            throw AppFileError(file: file, reason: "not UTF-8 (UTF-16 or UTF-32); save it as UTF-8")
        }
        if let line = entityDeclarationLine(bytes) {
            throw AppFileError(
                file: file, line: line,
                reason: "declares an XML entity (<!ENTITY …>); entities are never expanded or fetched, so the file "
                    + "is not read")
        }
        let parser = XMLParser(data: Data(bytes))
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        parser.shouldReportNamespacePrefixes = false
        let builder = TreeBuilder(parser: parser)
        parser.delegate = builder
        let parsed = parser.parse()
        if let failure = builder.failure { throw AppFileError(file: file, line: failure.line, reason: failure.reason) }
        guard parsed, let root = builder.root else {
            let line = builder.errorLine ?? (parser.lineNumber > 0 ? parser.lineNumber : nil)
            let code = (parser.parserError as NSError?)?.code
            throw AppFileError(
                file: file, line: line, reason: "not well-formed XML" + (code.map { " (libxml2 error \($0))" } ?? ""))
        }
        return root
    }

    /// The line of the first `<!ENTITY` anywhere in the bytes, if any.
    static func entityDeclarationLine(_ bytes: [UInt8]) -> Int? {
        let needle = Array("<!ENTITY".utf8)
        var line = 1
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x0A {
                line += 1
            } else if byte == 0x3C, index + needle.count <= bytes.count,
                bytes[index..<(index + needle.count)].elementsEqual(needle)
            {
                return line
            }
            index += 1
        }
        return nil
    }

    private final class TreeBuilder: NSObject, XMLParserDelegate {
        let parser: XMLParser
        var stack: [XMLTreeNode] = []
        var root: XMLTreeNode?
        var failure: (line: Int?, reason: String)?
        /// The line libxml2 reported its error on (after `parse()` returns, the parser is at the end).
        var errorLine: Int?

        init(parser: XMLParser) { self.parser = parser }

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            guard root == nil || !stack.isEmpty else {
                failure = (parser.lineNumber, "a second root element <\(elementName)> after the document's end")
                parser.abortParsing()
                return
            }
            guard stack.count < XMLTreeReader.maxDepth else {
                failure = (parser.lineNumber, "nested deeper than \(XMLTreeReader.maxDepth) elements")
                parser.abortParsing()
                return
            }
            stack.append(
                XMLTreeNode(name: elementName, attributes: attributes, children: [], text: "", line: parser.lineNumber))
        }

        func parser(
            _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?
        ) {
            guard let element = stack.popLast() else { return }
            if stack.isEmpty { root = element } else { stack[stack.count - 1].children.append(element) }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if !stack.isEmpty {
                stack[stack.count - 1].text += string
            } else if root != nil, string.contains(where: { !$0.isWhitespace }), failure == nil {
                failure = (parser.lineNumber, "text after the root element")
                parser.abortParsing()
            }
        }

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
            if errorLine == nil { errorLine = parser.lineNumber }
        }

        func parser(_ parser: XMLParser, foundInternalEntityDeclarationWithName name: String, value: String?) {
            refuseEntity(name)
        }

        func parser(
            _ parser: XMLParser, foundExternalEntityDeclarationWithName name: String, publicID: String?,
            systemID: String?
        ) {
            refuseEntity(name)
        }

        /// A second line of defence behind the byte scan: whatever way a declaration got in, parsing stops.
        func refuseEntity(_ name: String) {
            guard failure == nil else { return }
            failure = (parser.lineNumber, "declares the XML entity '\(name)'; entities are never expanded or fetched")
            parser.abortParsing()
        }

        func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
            if !stack.isEmpty { stack[stack.count - 1].text += String(decoding: CDATABlock, as: UTF8.self) }
        }

        func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? {
            nil  // never: no file, no URL
        }
    }
}
