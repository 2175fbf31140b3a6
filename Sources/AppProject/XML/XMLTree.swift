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
/// document that declares entities at all is refused before parsing, so neither a file on disk nor an expansion
/// bomb ("billion laughs") can reach the settings. No app's manifest, plist or network security config declares one.
public enum XMLTreeReader {
    /// Bytes past this are refused: settings files are a few KB.
    public static let maxBytes = 4 << 20
    /// Nesting past this is refused.
    public static let maxDepth = 64

    public static func parse(_ bytes: [UInt8], file: String) throws(AppFileError) -> XMLTreeNode {
        guard bytes.count <= maxBytes else {
            throw AppFileError(file: file, reason: "larger than \(maxBytes >> 20) MiB; not a settings file")
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
            let line = parser.lineNumber > 0 ? parser.lineNumber : nil
            let code = (parser.parserError as NSError?)?.code
            throw AppFileError(
                file: file, line: line, reason: "not well-formed XML" + (code.map { " (libxml2 error \($0))" } ?? ""))
        }
        return root
    }

    /// The line of a `<!ENTITY` outside comments and CDATA, if any.
    static func entityDeclarationLine(_ bytes: [UInt8]) -> Int? {
        var line = 1
        var index = 0
        var inComment = false
        var inCDATA = false
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x0A { line += 1 }
            if inComment {
                if bytes.matches("-->", at: index) { inComment = false }
            } else if inCDATA {
                if bytes.matches("]]>", at: index) { inCDATA = false }
            } else if bytes.matches("<!--", at: index) {
                inComment = true
            } else if bytes.matches("<![CDATA[", at: index) {
                inCDATA = true
            } else if bytes.matches("<!ENTITY", at: index) {
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

        init(parser: XMLParser) { self.parser = parser }

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
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
            if !stack.isEmpty { stack[stack.count - 1].text += string }
        }

        func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
            if !stack.isEmpty { stack[stack.count - 1].text += String(decoding: CDATABlock, as: UTF8.self) }
        }

        func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? {
            nil  // never: no file, no URL
        }
    }
}

extension [UInt8] {
    func matches(_ text: String, at offset: Int) -> Bool {
        let needle = Array(text.utf8)
        guard offset >= 0, offset + needle.count <= count else { return false }
        return self[offset..<(offset + needle.count)].elementsEqual(needle)
    }
}
