/// The stable finding codes of Android's rules (android-assets.md, "Rules the tool should apply to Android cards").
/// Each is one platform's rule, so the code says so; rules both platforms have keep their shared code (`image.*`,
/// `video.*`) and say the platform in the message and in the finding's `platform`. People grep and suppress these;
/// never rename one.
public enum AndroidFindingCode {
    /// A format Glide 4.16 / Android's decoders cannot decode: TIFF, JPEG XL (A3) (error).
    public static let imageUnsupportedFormat = "image.android.unsupportedFormat"
    /// An Apple CgBI PNG: Skia rejects it (A2) (error).
    public static let imageCgBI = "image.android.cgbi"
    /// A format that decodes only from an API level above the app's minSdk: HEIF below 27, AVIF below 31/34 (A4, A5)
    /// (warning).
    public static let imageRequiresNewerAPI = "image.android.requiresNewerAPI"
    /// An animated WebP/AVIF in a cell whose required crop or rounding throws on an animated drawable (A6) (error),
    /// or in an optional-crop cell where it animates only from API 28 (A7) (warning; info when minSdk ≥ 28).
    public static let imageAnimated = "image.android.animated"
    /// Plain `http://` (also a redirect hop) blocked by the cleartext policy at targetSdk ≥ 28 (A8) (error; warning
    /// where the app permits cleartext to the host).
    public static let imageCleartext = "image.android.cleartext"
    /// The image server took longer than Glide's 2,500 ms connect/read timeout to the first byte (A9) (warning).
    public static let imageSlow = "image.android.slow"
    /// More than Glide's 5 redirects (A10) (error).
    public static let imageTooManyRedirects = "image.android.tooManyRedirects"

    /// Plain `http://` video, poster or playlist URI blocked for MediaPlayer (A8) (error; warning where permitted).
    public static let videoCleartext = "video.android.cleartext"
    /// An HLS stream whose URL does not contain `m3u8`: NuPlayer treats it as a file (V5) (error).
    public static let videoHLSURL = "video.android.hlsURL"
    /// HLS with fMP4/CMAF segments (`EXT-X-MAP`): MediaPlayer's extractor takes MPEG-TS only (V6) (error).
    public static let videoHLSSegments = "video.android.hlsSegments"
    /// A codec that decodes only on some devices or API levels: AV1 below API 34 (V3), H.264 above High (warning).
    public static let videoCodec = "video.android.codec"
    /// A progressive MPEG-TS file: MediaPlayer plays it but cannot seek (warning).
    public static let videoContainer = "video.android.container"
    /// The server ignores byte ranges: MediaPlayer plays from the start but cannot seek (warning).
    public static let videoNoRangeSupport = "video.android.noRangeSupport"
}
