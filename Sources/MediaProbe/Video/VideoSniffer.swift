public import Findings

/// Thresholds for the video checks.
public struct VideoLimits: Sendable, Hashable {
    /// Progressive file size above which ``VideoFindingCode/tooLarge`` is a warning. Default 100 MiB: an inbox
    /// video that large should be HLS, so the player can pick a bitrate instead of pulling the whole file.
    public var maxProgressiveBytes: Int64
    /// Top-level ISO-BMFF boxes walked before giving up. Default 1,000.
    public var maxBoxes: Int

    /// Thresholds with the documented defaults.
    public init(maxProgressiveBytes: Int64 = 100 << 20, maxBoxes: Int = 1_000) {
        self.maxProgressiveBytes = maxProgressiveBytes
        self.maxBoxes = maxBoxes
    }
}

/// What the first bytes of a video asset say about its container.
public struct VideoInfo: Sendable, Hashable {
    /// The container recognised from the bytes.
    public var format: MediaFormat
    /// The `ftyp` major brand of an MP4/MOV file (`isom`, `mp42`, `qt  `…), when present.
    public var majorBrand: String?
    /// The `ftyp` compatible brands.
    public var compatibleBrands: [String]
    /// Top-level box types in file order, as far as the bytes reach (at most `maxBoxes`).
    public var topLevelBoxes: [String]
    /// True when `moov` comes before `mdat` ("fast start"), false when after, nil when the bytes do not tell.
    public var moovBeforeMdat: Bool?
    /// Display size of the first video track (rotation applied), when `moov` is within the bytes.
    public var width: Int?
    /// See ``width``.
    public var height: Int?
    /// Movie duration in seconds, when `moov` is within the bytes.
    public var durationSeconds: Double?
    /// The first video track's codec (`avc1`, `hvc1`, `hev1`, `av01`…), when `moov` is within the bytes.
    public var videoCodec: String?
    /// The H.264 track's `profile_idc` (66 Baseline, 77 Main, 100 High, 110 High 10…), when the codec is H.264.
    public var avcProfile: UInt8?
    /// The first audio track's codec (`mp4a`, `ac-3`…), when there is one.
    public var audioCodec: String?
    /// Size of the whole resource in bytes.
    public var byteCount: Int
    /// Where the movie index the bytes did not hold begins: the start of a `moov` the bytes cut off, or the first
    /// top-level box after an `mdat` that reaches past them (`moov` at the end). Fetch from there and pass the
    /// bytes to ``VideoSniffer/inspectTail(_:at:of:limits:)`` to learn the codec, size and duration.
    public var movieIndexOffset: Int?
    /// Everything worth telling, most severe first.
    public var findings: [Finding]

    /// True when the container is one AVPlayer (iOS) plays and no finding is an error.
    public var isPlayable: Bool {
        [.mp4, .quickTime, .hls].contains(format) && findings.maxSeverity != .error
    }

    /// The platform-free findings with those of `platform`'s rules (``Finding/platform``).
    public func findings(on platform: RulePlatform) -> [Finding] {
        findings.filter { $0.platform == nil || $0.platform == platform }
    }
}

/// Sniffs video containers: MP4/MOV (box order, brands, movie header), WebM/Matroska, MPEG-TS, HLS text.
///
/// For a file a card plays directly. HLS segments and init segments are not standalone videos (no `moov`, or no
/// media): the crawl checks those with ``MediaSniffer`` only.
public enum VideoSniffer {
    /// Inspects the bytes of a video asset (the whole file, or its first bytes).
    ///
    /// - Parameters:
    ///   - bytes: The resource or a prefix of it. The first few KB usually show `ftyp` and whether `moov` or
    ///     `mdat` comes first (box headers let the walk jump over `mdat` without its bytes).
    ///   - contentType: The HTTP Content-Type it was served with, if known.
    ///   - byteCount: The full size when `bytes` is a prefix; nil means `bytes` is everything.
    ///   - limits: Thresholds.
    /// - Returns: The container, brands, box order and findings. Never throws.
    public static func inspect(
        bytes: [UInt8], contentType: String? = nil, byteCount: Int? = nil, limits: VideoLimits = VideoLimits()
    ) -> VideoInfo {
        let total = Swift.max(byteCount ?? bytes.count, bytes.count)
        let format = MediaSniffer.sniff(bytes)
        var info = VideoInfo(
            format: format, majorBrand: nil, compatibleBrands: [], topLevelBoxes: [], moovBeforeMdat: nil,
            width: nil, height: nil, durationSeconds: nil, videoCodec: nil, audioCodec: nil, byteCount: total,
            movieIndexOffset: nil, findings: [])
        let servedAs = MediaContentType.essence(contentType)
        let served = servedAs.map { " (served as \($0))" } ?? ""
        switch format {
        case .empty:
            info.findings.append(.error(VideoFindingCode.empty, "The video is empty (zero bytes)\(served)."))
            return info
        case .mp4, .quickTime:
            inspectISOBMFF(bytes, complete: total <= bytes.count, limits: limits, into: &info)
        case .webm, .matroska:
            info.findings.append(
                .error(
                    VideoFindingCode.unsupportedContainer,
                    "The video is \(format.describedForHumans); AVPlayer on iOS cannot play WebM or Matroska. "
                        + "Serve MP4 (H.264/HEVC) or HLS."
                ).on(.ios))
        case .mpegTS:
            info.findings.append(
                .error(
                    VideoFindingCode.unsupportedContainer,
                    "The video is a bare MPEG transport stream; AVPlayer on iOS plays .ts only as segments of an "
                        + "HLS playlist. Serve MP4 or an .m3u8 playlist."
                ).on(.ios))
        case .dash:
            // Neither AVPlayer (iOS plays HLS, not DASH) nor MediaPlayer (no DASH source in NuPlayer,
            // android-assets.md §4, V7) plays an MPEG-DASH manifest.
            info.findings.append(
                .error(
                    VideoFindingCode.unsupportedContainer,
                    "The video is an MPEG-DASH manifest; the inbox players (AVPlayer, MediaPlayer) play MP4 or HLS, "
                        + "not DASH. Serve an .m3u8 playlist."))
            return info
        case .hls:
            break
        default:
            var message = "The bytes are \(format.describedForHumans)\(served), not a video."
            if [.html, .json, .xml, .text].contains(format) {
                message += " Often an error or login page answered with status 200."
            }
            info.findings.append(.error(VideoFindingCode.notVideo, message))
            return info
        }
        if let servedAs, !format.acceptedContentTypes.contains(servedAs) {
            // AVPlayer picks how to play a URL by its type or extension; MediaPlayer sniffs the bytes.
            info.findings.append(contentTypeFinding(servedAs: servedAs, format: format).on(.ios))
        }
        if format != .hls, let finding = tooLarge(Int64(total), limits: limits) { info.findings.append(finding) }
        info.findings.sort { $0.severity > $1.severity }
        return info
    }

    /// Completes `info` with the movie index found in `tail`, the bytes of the file from `offset` (its
    /// ``VideoInfo/movieIndexOffset``) on: codec, size, duration and their findings, as if `moov` had been in the
    /// first bytes. When `tail` reaches the end of the file and holds no `moov`, the file has none (ffprobe:
    /// "moov atom not found"): ``VideoFindingCode/noMoov``.
    ///
    /// - Parameters:
    ///   - tail: Bytes of the file starting at a top-level box boundary.
    ///   - offset: Where `tail` starts in the file.
    ///   - info: What the first bytes showed.
    ///   - limits: Thresholds.
    /// - Returns: `info` with the movie's details and findings added. Never throws.
    public static func inspectTail(
        _ tail: [UInt8], at offset: Int, of info: VideoInfo, limits: VideoLimits = VideoLimits()
    ) -> VideoInfo {
        var info = info
        let reachesEnd = offset + tail.count >= info.byteCount
        let walk = walkISOBoxes(tail, from: 0, to: reachesEnd ? tail.count : Int.max, maxBoxes: limits.maxBoxes)
        let types = walk.boxes.map(\.type)
        if !info.topLevelBoxes.contains("moov") { info.topLevelBoxes += types }
        if let moov = walk.boxes.first(where: { $0.type == "moov" }), moov.end <= tail.count {
            if info.moovBeforeMdat == nil { info.moovBeforeMdat = !info.topLevelBoxes.contains("mdat") }
            checkMovie(MovieHeader(tail, moov: moov, maxBoxes: limits.maxBoxes), into: &info)
        } else if let moov = walk.boxes.first(where: { $0.type == "moov" }) {
            info.findings.append(
                .info(
                    VideoFindingCode.moovNotRead,
                    "The movie index ('moov', \(moov.end) bytes from offset \(offset)) is longer than the "
                        + "\(tail.count) bytes read from the end: its codec, size and duration are not checked."))
        } else if reachesEnd, walk.stop == .end, !types.contains("moov") {
            info.findings.removeAll { $0.code == VideoFindingCode.moovAfterMdat }
            info.findings.append(
                .error(VideoFindingCode.noMoov, "The file has no 'moov' box (the movie index); nothing can play it."))
        }
        info.movieIndexOffset = nil
        info.findings.sort { $0.severity > $1.severity }
        return info
    }

    /// `video.tooLarge` when a progressive video is over the inbox limit.
    static func tooLarge(_ total: Int64, limits: VideoLimits) -> Finding? {
        guard total > limits.maxProgressiveBytes else { return nil }
        return .warning(
            VideoFindingCode.tooLarge,
            "The video is \(formatBytes(Int(total))), over \(formatBytes(Int(limits.maxProgressiveBytes))) "
                + "for progressive playback in an inbox; prefer HLS.")
    }

    /// Codecs AVPlayer on iOS plays in MP4/MOV without caveats.
    static let playableVideoCodecs: Set<String> = [
        "avc1", "avc3", "hvc1", "mp4v", "jpeg", "apcn", "apch", "apcs", "ap4h",
    ]

    private static func checkMovie(_ movie: MovieHeader, into info: inout VideoInfo) {
        info.durationSeconds = movie.durationSeconds
        info.audioCodec = movie.tracks.first { $0.handler == "soun" }?.codec
        guard let video = movie.videoTrack else {
            info.findings.append(
                .warning(
                    VideoFindingCode.noVideoTrack,
                    "The movie has no video track (\(movie.tracks.count) track(s), e.g. audio only); the card "
                        + "shows a black player."))
            return
        }
        info.width = video.width
        info.height = video.height
        info.videoCodec = video.codec
        info.avcProfile = video.avcProfile
        // The codec findings below are AVPlayer's (iOS); MediaRules judges the same facts for Android.
        if let profile = video.avcProfile, let name = H264Profile.unsupportedName(profile) {
            // Apple decodes 8-bit 4:2:0 H.264 up to High profile only: HLS Authoring Specification for Apple
            // Devices §1.3 ("less than or equal to High Profile"); ffmpeg's H.264 guide: QuickTime needs
            // `-pix_fmt yuv420p`. ffprobe names these "High 10", "High 4:2:2", "High 4:4:4 Predictive".
            info.findings.append(
                .error(
                    VideoFindingCode.codec,
                    "The H.264 track uses the \(name), which AVPlayer on iOS does not decode. Re-encode with "
                        + "`-profile:v high -pix_fmt yuv420p`."
                ).on(.ios))
        }
        guard let codec = video.codec, !playableVideoCodecs.contains(codec) else { return }
        switch codec {
        case "hev1":
            info.findings.append(
                .error(
                    VideoFindingCode.codec,
                    "The HEVC track is tagged 'hev1'; AVPlayer on iOS plays HEVC in MP4/MOV only when tagged "
                        + "'hvc1'. Re-mux with `-tag:v hvc1`."
                ).on(.ios))
        case "av01":
            info.findings.append(
                .warning(
                    VideoFindingCode.codec,
                    "AV1 video decodes only on iOS 17+ devices with AV1 hardware (A17 Pro, M3 and later)."
                ).on(.ios))
        case "vp09", "vp08":
            info.findings.append(
                .error(
                    VideoFindingCode.codec,
                    "\(codec == "vp09" ? "VP9" : "VP8") video in MP4 does not play in AVPlayer on iOS."
                ).on(.ios))
        default:
            info.findings.append(
                .warning(
                    VideoFindingCode.codec, "The video codec '\(codec)' is unusual; AVPlayer on iOS may not play it."
                ).on(.ios))
        }
    }

    static func contentTypeFinding(servedAs: String, format: MediaFormat) -> Finding {
        if MediaContentType.genericTypes.contains(servedAs) {
            return .warning(
                VideoFindingCode.contentType,
                "Served as \(servedAs); AVPlayer decides how to play a URL by its type or extension, so serve "
                    + "\(format.mimeType).")
        }
        if servedAs.hasPrefix("text/html") {
            return .error(
                VideoFindingCode.contentType,
                "Served as \(servedAs) although the bytes are \(format.describedForHumans); AVPlayer refuses it.")
        }
        return .warning(
            VideoFindingCode.contentType,
            "Served as \(servedAs) but the bytes are \(format.describedForHumans) (\(format.mimeType)).")
    }

    private static func inspectISOBMFF(
        _ bytes: [UInt8], complete: Bool, limits: VideoLimits, into info: inout VideoInfo
    ) {
        let brands = MediaSniffer.ftypBrands(bytes)
        info.majorBrand = brands.major
        info.compatibleBrands = brands.compatible
        let walk = walkISOBoxes(bytes, from: 0, to: complete ? bytes.count : Int.max, maxBoxes: limits.maxBoxes)
        info.topLevelBoxes = walk.boxes.map(\.type)
        let moov = info.topLevelBoxes.firstIndex(of: "moov")
        let mdat = info.topLevelBoxes.firstIndex(of: "mdat")
        switch (moov, mdat) {
        case (let moov?, let mdat?): info.moovBeforeMdat = moov < mdat
        case (_?, nil): info.moovBeforeMdat = true
        case (nil, _?): info.moovBeforeMdat = false
        case (nil, nil): break
        }
        switch walk.stop {
        case .badSize(let offset, let type, let size):
            info.findings.append(
                .error(VideoFindingCode.corrupt, "Box '\(type)' at byte \(offset) has the impossible size \(size)."))
        case .overruns(let type, let offset, let size, let room):
            info.findings.append(
                .error(
                    VideoFindingCode.truncated,
                    "The file is cut off: box '\(type)' at byte \(offset) claims \(size) bytes but only \(room) "
                        + "remain."))
        case .tooManyBoxes:
            info.findings.append(
                .warning(
                    VideoFindingCode.corrupt, "More than \(limits.maxBoxes) top-level boxes; the walk stopped there."))
        case .ranOut(let offset) where complete:
            info.findings.append(
                .error(VideoFindingCode.truncated, "The file is cut off inside a box header at byte \(offset)."))
        case .ranOut, .end:
            break
        }
        var initSegmentOnly = false
        if let moovBox = walk.boxes.first(where: { $0.type == "moov" }) {
            if moovBox.end <= bytes.count {
                let movie = MovieHeader(bytes, moov: moovBox, maxBoxes: limits.maxBoxes)
                initSegmentOnly = movie.isFragmented
                checkMovie(movie, into: &info)
            } else if !complete {
                info.movieIndexOffset = moovBox.start
            }
        } else if case .ranOut(let offset) = walk.stop, !complete, offset >= bytes.count, offset < info.byteCount {
            info.movieIndexOffset = offset  // the box after an mdat longer than the bytes at hand: often moov
        }
        let fragmented = info.topLevelBoxes.contains("moof")
        if complete, moov == nil, walk.stop == .end {
            info.findings.append(
                .error(VideoFindingCode.noMoov, "The file has no 'moov' box (the movie index); nothing can play it."))
        } else if complete, mdat == nil, !fragmented, walk.stop == .end {
            info.findings.append(
                .error(
                    VideoFindingCode.noMediaData,
                    initSegmentOnly
                        ? "The file is a fragmented-MP4 init segment ('moov' with 'mvex') and holds no media fragments."
                        : "The file has its movie index but no media data ('mdat'); it was probably cut off."))
        } else if info.moovBeforeMdat == false {
            info.findings.append(
                .warning(
                    VideoFindingCode.moovAfterMdat,
                    "The movie index ('moov') comes after the media data ('mdat'): the player must fetch the end "
                        + "of the file before it can start (Android's streaming requirements ask for 'moov' first). "
                        + "Re-mux with `-movflags +faststart`."))
        }
    }
}
