/// Codes of what the preview shows will look wrong on a device although nothing fails: images the cell scales far
/// up or crops, text placeholders without a default (``PreviewChecks``).
public enum PreviewFindingCode {
    /// An image is far smaller than the cell draws it on a 3× screen (less than a quarter of the pixels across, e.g. an
    /// 8×8 hero on a 358 pt banner, 1074 px at @3x): it shows as a blurred or blocky square (warning).
    public static let imageTooSmall = "image.tooSmallForCell"
    /// An image's aspect ratio is extreme for its cell (more than 3 times wider or taller than the cell's frame, which
    /// fills by cropping): most of it is cut away (warning).
    public static let imageCropped = "image.croppedByCell"
    /// A title or body holds a dynamic-content placeholder without a default (`{{first_name}}`): a user without that
    /// tag sees it empty (warning). Placeholders with one (`{{first_name|default:'there'}}`) render it in the preview.
    public static let placeholderNoDefault = "card.placeholderNoDefault"
}
