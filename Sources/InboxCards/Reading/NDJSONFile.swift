import StrictJSON

/// An NDJSON file read a chunk at a time (``CampaignReader/stream(_:options:message:)``): each line is parsed and
/// its messages handed on as soon as the line is complete, so what is held is one chunk (1 MiB, or the longest
/// line) and not the file.
enum NDJSONFile {
    static let chunk = 1 << 20

    /// Streams `file` into `reader` line by line when it is NDJSON as the whole-document reader would find it;
    /// returns `false`, having read nothing into `reader`, when it is not (the caller reads it whole).
    static func stream(
        _ file: CampaignFile, options: ReaderOptions, into reader: inout Reader
    ) throws(CampaignFile.ReadError) -> Bool {
        var buffer = [UInt8](repeating: 0, count: min(chunk, max(file.size, 1)))
        var filled = try file.read(at: 0, into: &buffer, from: 0)
        let parseOptions = JSONParseOptions(maxDepth: options.maxDepth)
        var parser = JSONDocumentParser(options: parseOptions)
        guard isNDJSON(buffer[..<filled], parser: &parser) else { return false }
        reader.batch.sources.append(reader.source)
        var state = Reader.LineState()
        var lineNumber = 0
        var fileOffset = 0  // of buffer[0]
        var start = 0  // of the next line in the buffer
        var atEnd = filled == file.size
        while true {
            let end = buffer.withUnsafeBufferPointer { raw in
                ByteScan.firstIndex(of: 0x0A, in: UnsafeBufferPointer(rebasing: raw[..<filled]), from: start)
            }
            if end < filled || atEnd {
                lineNumber += 1
                buffer.withUnsafeBytes { raw in
                    reader.readLine(
                        UnsafeRawBufferPointer(rebasing: raw[start..<end]), number: lineNumber,
                        offset: fileOffset + start, state: &state, parser: &parser)
                }
                start = end + 1
                if end == filled { break }  // the last line, without a newline or empty after the last one
                continue
            }
            // The line goes on past the buffer: keep it, move it to the front, read on (a line longer than the
            // buffer doubles it).
            let kept = filled - start
            if start > 0 {
                buffer.withUnsafeMutableBytes { raw in
                    raw.baseAddress!.copyMemory(from: raw.baseAddress! + start, byteCount: kept)
                }
                fileOffset += start
                start = 0
            } else {
                buffer += [UInt8](repeating: 0, count: buffer.count)
            }
            let got = try file.read(at: fileOffset + kept, into: &buffer, from: kept)
            filled = kept + got
            atEnd = fileOffset + filled >= file.size || got == 0
        }
        // Every line after the first may be broken: the first one parsed, so the input is never unusable here.
        return true
    }

    /// Whether the whole-document reader would read `head`'s file as NDJSON without looking further: its first line
    /// is one JSON value on its own, and content follows it within `head`. (The whole-document parse then stops
    /// after that value with `trailingContent`, and the reader reads the input line by line.)
    static func isNDJSON(_ head: ArraySlice<UInt8>, parser: inout JSONDocumentParser) -> Bool {
        guard let newline = head.firstIndex(of: 0x0A),
            head[head.index(after: newline)...].contains(where: { !CampaignReader.isWhitespace($0) })
        else { return false }
        let first = head[..<newline]
        guard first.contains(where: { !CampaignReader.isWhitespace($0) }) else { return false }
        return first.withUnsafeBytes { raw in
            do {
                _ = try parser.parseDocument(raw)
                return true
            } catch {
                return false
            }
        }
    }
}
