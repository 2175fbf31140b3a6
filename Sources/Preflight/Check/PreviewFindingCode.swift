import MediaRules

/// Codes of what the preview shows will look wrong on a device although nothing fails: images the cell scales far
/// up or crops, text placeholders without a default (``PreviewChecks``).
public enum PreviewFindingCode {
    /// An image is far smaller than its platform's cell draws it: iOS less than a quarter of the pixels across a 3×
    /// screen (an 8×8 hero on a 358 pt banner, 1074 px at @3x), Android more than 2× upscaled to cover its dp cell at
    /// 3× (warning; 1–2× is information on Android) (``CellGeometry``).
    public static let imageTooSmall = GeometryFindingCode.tooSmall
    /// An image's aspect ratio is extreme for its cell: iOS more than 3 times wider or taller than the frame (warning),
    /// Android a CenterCrop that cuts more than half (info).
    public static let imageCropped = GeometryFindingCode.cropped
    /// A title or body holds a dynamic-content placeholder without a default (`{{first_name}}`): a user without that
    /// tag sees it empty (warning). Placeholders with one (`{{first_name|default:'there'}}`) render it in the preview.
    public static let placeholderNoDefault = "card.placeholderNoDefault"
}
