internal import Findings

/// What a format's header parser learned, before the policy checks of ``ImageSniffer`` run.
struct ImageHeader {
    /// Stored pixel size, as the header says.
    var width: Int?
    var height: Int?
    /// True when the shown image is rotated by 90° (EXIF orientation 5–8, HEIF `irot` 90/270).
    var swapsAxes = false
    var animated = false
    var frameCount: Int?
    /// An Apple CgBI PNG (``ImageInfo/appleCgBI``).
    var appleCgBI = false
    var findings: [Finding] = []
}

/// Shared state of one header parse: the bytes, whether they are the whole resource, and the findings so far.
///
/// `complete` decides what running out of bytes means: for a whole file it is a truncation (an error), for a
/// prefix (the pipeline passed only the first bytes of a larger resource) it only means "not known from here".
struct HeaderParse {
    let bytes: [UInt8]
    let complete: Bool
    let formatName: String
    var header = ImageHeader()

    init(_ bytes: [UInt8], complete: Bool, formatName: String) {
        self.bytes = bytes
        self.complete = complete
        self.formatName = formatName
    }

    /// The bytes ended while reading `what`.
    mutating func ranOut(_ what: String, severity: Severity = .error) {
        if complete {
            header.findings.append(
                Finding(
                    severity, ImageFindingCode.truncated,
                    "The \(formatName) file is cut off: it ends inside \(what) (\(bytes.count) bytes).")
            )
        }
        // A prefix that ends early is no finding: the answer is just partial (see `dimensionsUnknown`).
    }

    mutating func corrupt(_ message: String, severity: Severity = .error) {
        header.findings.append(Finding(severity, ImageFindingCode.corrupt, "Corrupt \(formatName): \(message)"))
    }

    mutating func setSize(width: Int, height: Int) {
        header.width = width
        header.height = height
    }
}
