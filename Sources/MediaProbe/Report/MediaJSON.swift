internal import Findings
public import StrictJSON

// JSON views of MediaProbe's results for the report (DESIGN.md "Report"). Keys are camelCase and stable; absent
// values are `null` rather than missing, so consumers can rely on the shape. Every URL goes through
// `Redaction.redactURL` here, because results keep the real URLs (the pipeline needs them to fetch).

private func optional(_ value: Int?) -> JSONValue { value.map(JSONValue.int) ?? .null }
private func optional(_ value: Int64?) -> JSONValue { value.map { .int(Int($0)) } ?? .null }
private func optional(_ value: Double?) -> JSONValue { value.map(JSONValue.double) ?? .null }
private func optional(_ value: Bool?) -> JSONValue { value.map(JSONValue.bool) ?? .null }
private func redacted(_ url: String?) -> JSONValue { url.map { .string(Redaction.redactURL($0)) } ?? .null }

extension ImageInfo {
    /// `{"format", "mimeType", "width", "height", "animated", "frameCount", "bytes", "decodedBytes", "displayable",
    /// "findings"}`.
    public var json: JSONValue {
        .object(
            JSONObject([
                ("format", .string(format.rawValue)), ("mimeType", .string(format.mimeType)),
                ("width", optional(width)), ("height", optional(height)), ("animated", .bool(animated)),
                ("frameCount", optional(frameCount)), ("bytes", .int(byteCount)),
                ("decodedBytes", optional(decodedByteCount)), ("displayable", .bool(isDisplayable)),
                ("findings", .array(findings.map(\.json))),
            ]))
    }
}

extension VideoInfo {
    /// `{"format", "mimeType", "majorBrand", "compatibleBrands", "moovBeforeMdat", "width", "height",
    /// "durationSeconds", "videoCodec", "audioCodec", "bytes", "playable", "findings"}`.
    public var json: JSONValue {
        .object(
            JSONObject([
                ("format", .string(format.rawValue)), ("mimeType", .string(format.mimeType)),
                ("majorBrand", majorBrand.map(JSONValue.string) ?? .null),
                ("compatibleBrands", .array(compatibleBrands.map(JSONValue.string))),
                ("moovBeforeMdat", optional(moovBeforeMdat)), ("width", optional(width)),
                ("height", optional(height)), ("durationSeconds", optional(durationSeconds)),
                ("videoCodec", videoCodec.map(JSONValue.string) ?? .null),
                ("audioCodec", audioCodec.map(JSONValue.string) ?? .null), ("bytes", .int(byteCount)),
                ("playable", .bool(isPlayable)), ("findings", .array(findings.map(\.json))),
            ]))
    }
}

extension RangeProbeEvaluation {
    /// `{"byteRanges", "totalBytes", "playlist", "findings"}`.
    public var json: JSONValue {
        .object(
            JSONObject([
                ("byteRanges", .bool(supportsByteRanges)), ("totalBytes", optional(totalBytes)),
                ("playlist", .bool(isPlaylist)), ("findings", .array(findings.map(\.json))),
            ]))
    }
}

extension HLSVariant {
    /// `{"url", "bandwidth", "averageBandwidth", "width", "height", "codecs", "frameRate", "iFrameOnly", "line"}`.
    public var json: JSONValue {
        .object(
            JSONObject([
                ("url", redacted(url)), ("bandwidth", optional(bandwidth)),
                ("averageBandwidth", optional(averageBandwidth)), ("width", optional(width)),
                ("height", optional(height)), ("codecs", codecs.map(JSONValue.string) ?? .null),
                ("frameRate", optional(frameRate)), ("iFrameOnly", .bool(isIFrameOnly)), ("line", .int(line)),
            ]))
    }
}

extension HLSRendition {
    /// `{"type", "groupId", "name", "language", "url", "line"}`.
    public var json: JSONValue {
        .object(
            JSONObject([
                ("type", .string(type)), ("groupId", .string(groupID)), ("name", .string(name)),
                ("language", language.map(JSONValue.string) ?? .null), ("url", redacted(url)), ("line", .int(line)),
            ]))
    }
}

extension HLSPlaylist {
    /// A summary: kind, variants and renditions in full (they are capped), segments as a count, the total duration
    /// and the first segment (a media playlist may hold 100,000 of them).
    public var json: JSONValue {
        .object(
            JSONObject([
                ("kind", .string(kind.rawValue)), ("url", redacted(baseURL)), ("version", optional(version)),
                ("variants", .array(variants.map(\.json))), ("renditions", .array(renditions.map(\.json))),
                ("segmentCount", .int(segments.count)), ("durationSeconds", .double(totalDuration)),
                ("firstSegment", redacted(segments.first?.url)), ("targetDuration", optional(targetDuration)),
                ("endList", .bool(hasEndList)), ("findings", .array(findings.map(\.json))),
            ]))
    }
}

extension HLSCrawl {
    /// `{"playlists": [{"url", "purpose", "kind", "variants", "segments"}], "findings"}`.
    public var json: JSONValue {
        let summaries = playlists.map { entry -> JSONValue in
            .object(
                JSONObject([
                    ("url", redacted(entry.url)), ("purpose", .string(entry.purpose.rawValue)),
                    ("kind", .string(entry.playlist.kind.rawValue)),
                    ("variants", .int(entry.playlist.variants.count)),
                    ("segments", .int(entry.playlist.segments.count)),
                ]))
        }
        return .object(
            JSONObject([("playlists", .array(summaries)), ("findings", .array(findings.map(\.json)))]))
    }
}
