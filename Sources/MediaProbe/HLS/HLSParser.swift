internal import Findings

/// The line-by-line state machine behind ``HLSPlaylist/parse(bytes:baseURL:limits:)``.
struct HLSParser {
    private let baseURL: String
    /// The base split once: a media playlist resolves every segment URI against it.
    private let base: URIReference
    private let limits: HLSLimits
    private var playlist: HLSPlaylist
    private var findings = CappedFindings()

    private var firstMasterTagLine: Int?
    private var firstMediaTagLine: Int?
    private var pendingStreamInf: (attributes: HLSAttributes, line: Int)?
    private var pendingSegment: (duration: Double, title: String?, line: Int)?
    private var pendingByteRange: HLSByteRange?
    private var previousSegmentRangeEnd: (url: String, end: Int)?
    private var keyMethod: String?
    private var keyURL: String?
    private var mapURL: String?
    private var mapRange: HLSByteRange?
    private var droppedVariants = 0
    private var droppedRenditions = 0
    private var droppedSegments = 0
    private var lineNumber = 0

    init(baseURL: String, limits: HLSLimits) {
        self.baseURL = baseURL
        base = URIReference(baseURL)
        self.limits = limits
        playlist = HLSPlaylist(
            kind: .unknown, baseURL: baseURL, version: nil, variants: [], renditions: [], segments: [],
            targetDuration: nil, mediaSequence: nil, playlistType: nil, hasEndList: false, findings: [])
    }

    // MARK: Lines

    mutating func run(_ bytes: [UInt8]) {
        guard bytes.count <= limits.maxBytes else {
            return findings.add(
                .error(
                    HLSFindingCode.unreadable,
                    "The playlist is \(formatBytes(bytes.count)), over the \(formatBytes(limits.maxBytes)) cap."))
        }
        guard String(validating: bytes, as: UTF8.self) != nil else {
            return findings.add(.error(HLSFindingCode.unreadable, "The playlist is not valid UTF-8 text."))
        }
        var start = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            // RFC 8216 §4.1: "Playlist files MUST NOT contain any Byte Order Mark (BOM); clients SHOULD fail to
            // parse Playlists that contain a BOM". ffprobe's HLS demuxer refuses it (its probe compares the first
            // bytes with "#EXTM3U"). The rest is still parsed, so the other findings and details are known.
            findings.add(
                .error(
                    HLSFindingCode.byteOrderMark,
                    "The playlist starts with a UTF-8 byte order mark (EF BB BF); RFC 8216 §4.1 forbids it and "
                        + "players may refuse the playlist. Save it as UTF-8 without BOM."))
            start = 3
        }
        var sawHeader = false
        while start < bytes.count {
            let newline = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
            let line = trimmed(bytes[start..<newline])
            start = newline + 1
            lineNumber += 1
            if lineNumber > limits.maxLines {
                findings.add(
                    .warning(
                        HLSFindingCode.tooLarge,
                        "The playlist has more than \(limits.maxLines) lines; the rest was not read."))
                break
            }
            if !sawHeader {
                guard line.elementsEqual("#EXTM3U".utf8) else {
                    let looksLike = MediaSniffer.sniff(Array(bytes.prefix(MediaSniffer.textWindow)))
                    let what =
                        looksLike == .hls || looksLike == .text
                        ? "" : " (it looks like \(looksLike.describedForHumans))"
                    return findings.add(
                        .error(
                            HLSFindingCode.notPlaylist,
                            "The first line is not #EXTM3U, so this is not an HLS playlist\(what)."))
                }
                sawHeader = true
                continue
            }
            if line.isEmpty { continue }
            if line.starts(with: "#EXT".utf8) {
                handleTag(String(decoding: line, as: UTF8.self))
            } else if line.first == UInt8(ascii: "#") {
                continue  // a comment
            } else {
                handleURI(String(decoding: line, as: UTF8.self))
            }
        }
        if !sawHeader && lineNumber == 0 {
            findings.add(.error(HLSFindingCode.notPlaylist, "The playlist is empty."))
        }
    }

    private func trimmed(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = line
        while let last = slice.last, last == 0x0D || last == 0x20 || last == 0x09 { slice = slice.dropLast() }
        while let first = slice.first, first == 0x20 || first == 0x09 { slice = slice.dropFirst() }
        return slice
    }

    // MARK: Tags

    private mutating func handleTag(_ line: String) {
        let colon = line.firstIndex(of: ":")
        let name = colon.map { String(line[..<$0]) } ?? line
        let value = colon.map { line[line.index(after: $0)...] } ?? ""
        switch name {
        case "#EXTM3U", "#EXT-X-INDEPENDENT-SEGMENTS", "#EXT-X-START", "#EXT-X-DEFINE":
            break
        case "#EXT-X-VERSION":
            playlist.version = parseDecimalInteger(value)
            if playlist.version == nil { malformed("EXT-X-VERSION '\(excerpt(value))' is not an integer", .warning) }
        case "#EXT-X-STREAM-INF":
            markMaster()
            if let pending = pendingStreamInf {
                malformed("EXT-X-STREAM-INF on line \(pending.line) has no URI line before the next tag", .error)
            }
            pendingStreamInf = (attributes(value, tag: name), lineNumber)
        case "#EXT-X-I-FRAME-STREAM-INF":
            markMaster()
            let attributes = attributes(value, tag: name)
            guard let uri = attributes.string("URI"), !uri.isEmpty else {
                return malformed("EXT-X-I-FRAME-STREAM-INF has no URI attribute", .error)
            }
            addVariant(uri: uri, attributes: attributes, iFrame: true, line: lineNumber)
        case "#EXT-X-MEDIA":
            markMaster()
            addRendition(attributes(value, tag: name))
        case "#EXT-X-SESSION-DATA", "#EXT-X-SESSION-KEY", "#EXT-X-CONTENT-STEERING":
            markMaster()
        case "#EXTINF":
            markMedia()
            handleExtinf(value)
        case "#EXT-X-TARGETDURATION":
            markMedia()
            guard let seconds = parseDecimalInteger(value) else {
                return malformed("EXT-X-TARGETDURATION '\(excerpt(value))' is not a decimal integer", .error)
            }
            playlist.targetDuration = seconds
        case "#EXT-X-MEDIA-SEQUENCE":
            markMedia()
            playlist.mediaSequence = parseDecimalInteger(value)
            if playlist.mediaSequence == nil {
                malformed("EXT-X-MEDIA-SEQUENCE '\(excerpt(value))' is not an integer", .warning)
            }
        case "#EXT-X-ENDLIST":
            markMedia()
            playlist.hasEndList = true
        case "#EXT-X-PLAYLIST-TYPE":
            markMedia()
            playlist.playlistType = String(value)
            if value != "VOD" && value != "EVENT" {
                malformed("EXT-X-PLAYLIST-TYPE '\(excerpt(value))' is neither VOD nor EVENT", .warning)
            }
        case "#EXT-X-KEY":
            markMedia()
            handleKey(attributes(value, tag: name))
        case "#EXT-X-MAP":
            markMedia()
            let attributes = attributes(value, tag: name)
            guard let uri = attributes.string("URI"), !uri.isEmpty else {
                return malformed("EXT-X-MAP has no URI attribute", .error)
            }
            mapURL = resolve(uri, playlistOrSegment: true)
            mapRange = attributes.string("BYTERANGE").flatMap { parseByteRange(Substring($0), previousEnd: 0) }
        case "#EXT-X-BYTERANGE":
            markMedia()
            guard let range = parseByteRange(value, previousEnd: nil) else {
                return malformed("EXT-X-BYTERANGE '\(excerpt(value))' is not <length>[@<offset>]", .error)
            }
            pendingByteRange = range
        case "#EXT-X-DISCONTINUITY", "#EXT-X-DISCONTINUITY-SEQUENCE", "#EXT-X-PROGRAM-DATE-TIME", "#EXT-X-GAP",
            "#EXT-X-BITRATE", "#EXT-X-PART", "#EXT-X-PART-INF", "#EXT-X-SERVER-CONTROL", "#EXT-X-PRELOAD-HINT",
            "#EXT-X-RENDITION-REPORT", "#EXT-X-SKIP", "#EXT-X-DATERANGE", "#EXT-X-I-FRAMES-ONLY":
            markMedia()
        default:
            break  // RFC 8216 §4: clients ignore tags they do not recognise
        }
    }

    private mutating func markMaster() {
        if firstMasterTagLine == nil { firstMasterTagLine = lineNumber }
    }

    private mutating func markMedia() {
        if firstMediaTagLine == nil { firstMediaTagLine = lineNumber }
    }

    private mutating func attributes(_ text: Substring, tag: String) -> HLSAttributes {
        let attributes = HLSAttributes(text)
        if let problem = attributes.problem { malformed("\(tag.dropFirst()): \(problem)", .warning) }
        return attributes
    }

    private mutating func handleExtinf(_ value: Substring) {
        let comma = value.firstIndex(of: ",")
        let durationText = comma.map { value[..<$0] } ?? value
        let title = comma.map { String(value[value.index(after: $0)...]) }
        guard let duration = parseDecimalFloat(durationText) else {
            pendingSegment = nil
            return malformed("EXTINF duration '\(excerpt(durationText))' is not a non-negative number", .error)
        }
        if let pending = pendingSegment {
            malformed("EXTINF on line \(pending.line) has no URI line before the next EXTINF", .error)
        }
        if duration > 86_400 {
            // The text may hold up to 40 digits: Int(duration) would trap past Int.max (found by make fuzz).
            let seconds = duration < 1e15 ? String(Int(duration)) : String(duration)
            findings.add(
                .warning(HLSFindingCode.absurdValue, "Line \(lineNumber): a segment of \(seconds) seconds is absurd."))
        }
        pendingSegment = (duration, title?.isEmpty == false ? title : nil, lineNumber)
    }

    private mutating func handleKey(_ attributes: HLSAttributes) {
        guard let method = attributes.string("METHOD") else {
            return malformed("EXT-X-KEY has no METHOD attribute", .error)
        }
        if method == "NONE" {
            keyMethod = nil
            keyURL = nil
            return
        }
        guard ["AES-128", "SAMPLE-AES", "SAMPLE-AES-CTR"].contains(method) else {
            return malformed("EXT-X-KEY METHOD '\(excerpt(method))' is unknown", .error)
        }
        guard let uri = attributes.string("URI"), !uri.isEmpty else {
            return malformed("EXT-X-KEY METHOD=\(excerpt(method)) has no URI", .error)
        }
        keyMethod = method
        // Key URIs may use other schemes (FairPlay's skd://), so only resolve, do not demand http(s).
        keyURL = resolve(uri, playlistOrSegment: false)
    }

    private mutating func addRendition(_ attributes: HLSAttributes) {
        guard let type = attributes.string("TYPE"), let group = attributes.string("GROUP-ID"),
            let name = attributes.string("NAME")
        else { return malformed("EXT-X-MEDIA needs TYPE, GROUP-ID and NAME", .warning) }
        guard ["AUDIO", "VIDEO", "SUBTITLES", "CLOSED-CAPTIONS"].contains(type) else {
            return malformed("EXT-X-MEDIA TYPE '\(excerpt(type))' is unknown", .warning)
        }
        let uri = attributes.string("URI")
        if type == "CLOSED-CAPTIONS" && uri != nil {
            malformed("EXT-X-MEDIA TYPE=CLOSED-CAPTIONS must not have a URI", .warning)
        }
        if type == "SUBTITLES" && uri == nil { malformed("EXT-X-MEDIA TYPE=SUBTITLES needs a URI", .warning) }
        guard playlist.renditions.count < limits.maxRenditions else {
            droppedRenditions += 1
            return
        }
        let url = type == "CLOSED-CAPTIONS" ? nil : uri.map { resolve($0, playlistOrSegment: true) }
        playlist.renditions.append(
            HLSRendition(
                type: type, groupID: group, name: name, language: attributes.string("LANGUAGE"), url: url,
                line: lineNumber))
    }

    // MARK: URI lines

    private mutating func handleURI(_ uri: String) {
        if let pending = pendingStreamInf {
            pendingStreamInf = nil
            addVariant(uri: uri, attributes: pending.attributes, iFrame: false, line: pending.line)
        } else if let pending = pendingSegment {
            pendingSegment = nil
            addSegment(uri: uri, duration: pending.duration, title: pending.title, line: pending.line)
        } else {
            malformed("the URI line '\(excerpt(uri, limit: 80))' follows neither EXTINF nor EXT-X-STREAM-INF", .warning)
        }
    }

    private mutating func addVariant(uri: String, attributes: HLSAttributes, iFrame: Bool, line: Int) {
        guard playlist.variants.count < limits.maxVariants else {
            droppedVariants += 1
            return
        }
        let bandwidth = attributes.integer("BANDWIDTH")
        if bandwidth == nil {
            malformed("the variant on line \(line) has no valid BANDWIDTH (it is required)", .warning, line: line)
        } else if let bandwidth, bandwidth > 1_000_000_000 {
            findings.add(
                .warning(
                    HLSFindingCode.absurdValue,
                    "Line \(line): BANDWIDTH=\(bandwidth) bits/s is absurd for a phone."))
        }
        var width: Int?
        var height: Int?
        if let resolution = attributes.string("RESOLUTION") {
            let parts = resolution.split(separator: "x", omittingEmptySubsequences: false)
            if parts.count == 2, let parsedWidth = parseDecimalInteger(parts[0]),
                let parsedHeight = parseDecimalInteger(parts[1])
            {
                width = parsedWidth
                height = parsedHeight
                if parsedWidth == 0 || parsedHeight == 0 || parsedWidth > 16_384 || parsedHeight > 16_384 {
                    findings.add(
                        .warning(
                            HLSFindingCode.absurdValue,
                            "Line \(line): RESOLUTION=\(excerpt(resolution)) is not a size a phone can play."))
                }
            } else {
                malformed("RESOLUTION '\(excerpt(resolution))' is not <width>x<height>", .warning, line: line)
            }
        }
        playlist.variants.append(
            HLSVariant(
                url: resolve(uri, playlistOrSegment: true), bandwidth: bandwidth,
                averageBandwidth: attributes.integer("AVERAGE-BANDWIDTH"), width: width, height: height,
                codecs: attributes.string("CODECS"),
                frameRate: attributes.string("FRAME-RATE").flatMap(parseDecimalFloat),
                audioGroup: attributes.string("AUDIO"), videoGroup: attributes.string("VIDEO"),
                subtitlesGroup: attributes.string("SUBTITLES"), isIFrameOnly: iFrame, line: line))
    }

    private mutating func addSegment(uri: String, duration: Double, title: String?, line: Int) {
        let url = resolve(uri, playlistOrSegment: true)
        var range = pendingByteRange
        pendingByteRange = nil
        if var given = range, given.offset < 0 {
            // No @offset: the range continues right after the previous segment's range of the same resource.
            if let previous = previousSegmentRangeEnd, previous.url == url {
                given.offset = previous.end
                range = given
            } else {
                malformed("EXT-X-BYTERANGE without @offset does not follow a range of the same resource", .error)
                range = nil
            }
        }
        previousSegmentRangeEnd = range.map { (url, $0.offset + $0.length) }
        guard playlist.segments.count < limits.maxSegments else {
            droppedSegments += 1
            return
        }
        playlist.segments.append(
            HLSSegment(
                url: url, duration: duration, title: title, byteRange: range, initSegmentURL: mapURL,
                initSegmentByteRange: mapRange, keyMethod: keyMethod, keyURL: keyURL, line: line))
    }

    /// `<length>[@<offset>]`; a missing offset is returned as -1 (or `previousEnd` when given).
    private func parseByteRange(_ text: Substring, previousEnd: Int?) -> HLSByteRange? {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count <= 2, let length = parseDecimalInteger(parts[0]) else { return nil }
        if parts.count == 2 {
            guard let offset = parseDecimalInteger(parts[1]), offset <= Int.max - length else { return nil }
            return HLSByteRange(offset: offset, length: length)
        }
        return HLSByteRange(offset: previousEnd ?? -1, length: length)
    }

    /// Resolves a URI against the playlist URL; a playlist or segment URI must be http(s).
    private mutating func resolve(_ uri: String, playlistOrSegment: Bool) -> String {
        guard let resolved = URIReference.resolve(uri, against: base) else {
            findings.add(
                .error(
                    HLSFindingCode.badURI,
                    "Line \(lineNumber): '\(Redaction.redactURL(String(uri.prefix(200))))' cannot be resolved "
                        + "against the playlist URL '\(Redaction.redactURL(baseURL))'."))
            return uri
        }
        // Plain http is a fact each platform's transport rule judges (MediaRules) from the URIs kept.
        if playlistOrSegment, !AppTransportSecurity.isPlainHTTP(resolved), resolved.prefix(8).lowercased() != "https://"
        {
            findings.add(
                .error(
                    HLSFindingCode.badURI,
                    "Line \(lineNumber): '\(Redaction.redactURL(String(resolved.prefix(200))))' is not an "
                        + "http(s) URL; players cannot fetch it."))
        }
        return resolved
    }

    private mutating func malformed(_ message: String, _ severity: Severity, line: Int? = nil) {
        findings.add(Finding(severity, HLSFindingCode.malformed, "Line \(line ?? lineNumber): \(message)."))
    }

    // MARK: Finish

    mutating func finish() -> HLSPlaylist {
        if findings.hasStopper {
            playlist.findings = findings.sorted()
            return playlist
        }
        switch (firstMasterTagLine, firstMediaTagLine) {
        case (let master?, let media?):
            playlist.kind = master < media ? .master : .media
            findings.add(
                .error(
                    HLSFindingCode.mixedTags,
                    "The playlist mixes master tags (line \(master)) and media tags (line \(media)); "
                        + "players reject it."))
        case (_?, nil): playlist.kind = .master
        case (nil, _?): playlist.kind = .media
        case (nil, nil): playlist.kind = .unknown
        }
        switch playlist.kind {
        case .master: finishMaster()
        case .media: finishMedia()
        case .unknown:
            findings.add(
                .error(HLSFindingCode.empty, "The playlist has an #EXTM3U header but no variants or segments."))
        }
        let dropped = [
            (droppedVariants, "variants", limits.maxVariants), (droppedRenditions, "renditions", limits.maxRenditions),
            (droppedSegments, "segments", limits.maxSegments),
        ]
        for (count, what, cap) in dropped where count > 0 {
            findings.add(
                .warning(HLSFindingCode.tooLarge, "Only the first \(cap) \(what) were kept; \(count) more ignored."))
        }
        playlist.findings = findings.sorted()
        return playlist
    }

    private mutating func finishMaster() {
        if let pending = pendingStreamInf {
            malformed("EXT-X-STREAM-INF has no URI line before the end", .error, line: pending.line)
        }
        if playlist.variants.allSatisfy(\.isIFrameOnly) {
            findings.add(.error(HLSFindingCode.noVariants, "The master playlist lists no playable variant streams."))
        }
        checkVariantCodecs()
        var groups: [String: Set<String>] = [:]
        for rendition in playlist.renditions { groups[rendition.type, default: []].insert(rendition.groupID) }
        var reported: Set<String> = []
        for variant in playlist.variants {
            for (type, group) in [
                ("AUDIO", variant.audioGroup), ("VIDEO", variant.videoGroup),
                ("SUBTITLES", variant.subtitlesGroup),
            ] {
                guard let group, groups[type]?.contains(group) != true, reported.insert(type + group).inserted
                else { continue }
                findings.add(
                    .warning(
                        HLSFindingCode.unknownGroup,
                        "Line \(variant.line): \(type)=\"\(excerpt(group))\" names no EXT-X-MEDIA group of that type."))
            }
        }
    }

    /// AVPlayer plays HEVC only as 'hvc1' and H.264 at most High profile (HLS Authoring Specification for Apple
    /// Devices §1.3; see ``HLSCodecs``); it skips variants it cannot decode and plays the others. So a master with
    /// some such variants is a warning, and one where no other variant remains is an error: nothing plays.
    private mutating func checkVariantCodecs() {
        let streams = playlist.variants.filter { !$0.isIFrameOnly }
        let unplayable = streams.filter { variant in
            guard let codecs = variant.codecs else { return false }
            return HLSCodecs.unplayableReason(codecs) != nil
        }
        guard let first = unplayable.first, let reason = first.codecs.flatMap(HLSCodecs.unplayableReason) else {
            return
        }
        let none = unplayable.count == streams.count
        let message =
            "Line \(first.line): \(reason)"
            + (none
                ? (streams.count == 1 ? "; it is the only variant, so nothing plays." : "; no variant plays.")
                : "; AVPlayer on iOS skips \(unplayable.count == 1 ? "that variant" : "\(unplayable.count) variants").")
        // AVPlayer's rule (iOS): Android's MediaPlayer decodes hev1 and picks variants its own way.
        findings.add(
            Finding(none ? .error : .warning, VideoFindingCode.codec, message).on(.ios))
    }

    private mutating func finishMedia() {
        if let pending = pendingSegment {
            if playlist.hasEndList {
                malformed("EXTINF has no URI line before the end", .error, line: pending.line)
            } else {
                // A live playlist is rewritten while a segment is being added: a player that reads it between
                // the EXTINF and the URI line ignores the incomplete last entry and reloads (RFC 8216 §6.3.4),
                // so this is a warning, not a broken stream.
                malformed(
                    "the live playlist ends with an EXTINF whose URI line is not written yet (a segment being "
                        + "added)", .warning, line: pending.line)
            }
        }
        if playlist.segments.isEmpty && droppedSegments == 0 {
            findings.add(.error(HLSFindingCode.noSegments, "The media playlist lists no segments."))
        }
        if let target = playlist.targetDuration {
            if target == 0 || target > limits.maxTargetDuration {
                findings.add(
                    .warning(
                        HLSFindingCode.absurdValue,
                        "EXT-X-TARGETDURATION is \(target) s (sane: 1…\(limits.maxTargetDuration))."))
            }
            let tooLong = playlist.segments.filter { $0.duration.rounded() > Double(target) }
            if let first = tooLong.first {
                findings.add(
                    .warning(
                        HLSFindingCode.absurdValue,
                        "\(tooLong.count) segment\(tooLong.count == 1 ? " is" : "s are") longer than the target "
                            + "duration of \(target) s (first: line \(first.line), \(first.duration) s); "
                            + "players may stall."))
            }
        } else {
            findings.add(
                .error(HLSFindingCode.noTargetDuration, "The media playlist has no EXT-X-TARGETDURATION (required)."))
        }
        if !playlist.hasEndList {
            findings.add(
                .info(HLSFindingCode.live, "No EXT-X-ENDLIST: a live playlist; its segments change over time."))
        }
    }
}

/// Findings with a per-code cap, so 100,000 malformed lines cost ten findings and one summary, not 100,000.
struct CappedFindings {
    private var kept: [Finding] = []
    private var perCode: [String: Int] = [:]
    static let capPerCode = 10

    var hasStopper: Bool {
        kept.contains { $0.code == HLSFindingCode.notPlaylist || $0.code == HLSFindingCode.unreadable }
    }

    mutating func add(_ finding: Finding) {
        let seen = perCode[finding.code, default: 0]
        perCode[finding.code] = seen + 1
        if seen < Self.capPerCode { kept.append(finding) }
    }

    func sorted() -> [Finding] {
        var result = kept
        for (code, count) in perCode.sorted(by: { $0.key < $1.key }) where count > Self.capPerCode {
            let severity = kept.filter { $0.code == code }.map(\.severity).max() ?? .warning
            result.append(
                Finding(severity, code, "\(count - Self.capPerCode) more '\(code)' findings like the above."))
        }
        return result.enumerated().sorted {
            $0.element.severity != $1.element.severity
                ? $0.element.severity > $1.element.severity : $0.offset < $1.offset
        }.map(\.element)
    }
}
