/// The stable `video.*` finding codes MediaProbe emits. People grep and suppress these; never rename one.
public enum VideoFindingCode {
    /// Zero bytes, or a range probe that reports a zero-length resource (`416` with `Content-Range: bytes */0`
    /// included) (error).
    public static let empty = "video.empty"
    /// The bytes are not video: an HTML error page, an image, text (error).
    public static let notVideo = "video.notVideo"
    /// iOS: a container AVPlayer cannot play progressively: WebM, Matroska, a bare MPEG-TS file (error); also an
    /// MPEG-DASH manifest, which no inbox player plays (error, both platforms).
    public static let unsupportedContainer = "video.unsupportedContainer"
    /// The MP4/MOV index (`moov`) comes after the media data: playback starts only after a seek to the end (warning).
    public static let moovAfterMdat = "video.moovAfterMdat"
    /// A whole MP4/MOV file without any `moov` box: nothing can play it (error).
    public static let noMoov = "video.noMoov"
    /// The `moov` after `mdat` could not be read (larger than the bytes the check reads from the end, or the tail
    /// request failed): the codec, size and duration are not checked (info).
    public static let moovNotRead = "video.moovNotRead"
    /// A video codec AVPlayer does not play (HEVC tagged `hev1`, VP8/VP9, H.264 High 10/4:2:2/4:4:4: error; in
    /// HLS an error only when no other variant plays) or plays only on some devices (AV1: warning).
    public static let codec = "video.codec"
    /// An MP4/MOV without a video track (audio only) (warning).
    public static let noVideoTrack = "video.noVideoTrack"
    /// A whole MP4/MOV with a movie index but no media data: cut off, or only an fMP4 init segment (error).
    public static let noMediaData = "video.noMediaData"
    /// The file is cut off inside a box (error).
    public static let truncated = "video.truncated"
    /// A box with an impossible size (error).
    public static let corrupt = "video.corrupt"
    /// The Content-Type disagrees with the bytes, or is not a video type AVPlayer accepts (warning or error).
    public static let contentType = "video.contentType"
    /// The server ignored the byte-range request (status 200): AVPlayer cannot play progressive media then (error).
    public static let noRangeSupport = "video.noRangeSupport"
    /// A 206 answer whose Content-Range is missing, malformed or not the range asked for (error).
    public static let badContentRange = "video.badContentRange"
    /// The range probe's status is neither 200 nor 206 (error).
    public static let httpStatus = "video.httpStatus"
    /// A 206 answer whose Content-Range total is `*`: AVPlayer needs the full length (warning).
    public static let unknownLength = "video.unknownLength"
    /// Content-Length disagrees with the Content-Range (warning).
    public static let lengthMismatch = "video.lengthMismatch"
    /// Larger than an inbox video should be for progressive playback (warning).
    public static let tooLarge = "video.tooLarge"
    /// iOS: the media URL, a redirect hop or an HLS playlist URI is plain `http://`: App Transport Security blocks it
    /// by default (warning); info for a host the app excepts. Android: `video.android.cleartext`.
    public static let appTransportSecurity = "video.ats"
}
