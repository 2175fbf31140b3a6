/// Geometry codes: a rule both platforms have, with each platform's numbers. People grep and suppress these.
public enum GeometryFindingCode {
    /// Upscaled to fill the cell: iOS more than 4× across (warning); Android more than 2× to cover (warning),
    /// 1–2× (info).
    public static let tooSmall = "image.tooSmallForCell"
    /// Cropped by the cell: iOS aspect ratio more than 3× off (warning); Android more than half cut (info).
    public static let cropped = "image.croppedByCell"
}
