public import Findings
public import MediaProbe

/// What an image's facts mean on one platform, in one cell, at the app's OS level: the platform's findings only
/// (the facts' own defects are ``ImageInfo/findings``). Each finding carries its ``Finding/platform``.
public enum ImageRules {
    /// The platform's findings for an image.
    /// - Parameters:
    ///   - info: The facts (``ImageSniffer/inspect(bytes:contentType:byteCount:limits:)``).
    ///   - use: The cell that draws it.
    ///   - platform: The platform whose table applies.
    ///   - app: The app's OS levels.
    ///   - limits: The iOS decode thresholds.
    public static func judge(
        _ info: ImageInfo, use: ImageUse, on platform: RulePlatform, app: AppSettings,
        limits: ImageLimits = ImageLimits()
    ) -> [Finding] {
        guard info.format.isRasterImage else { return [] }
        var findings: [Finding]
        switch platform {
        case .ios: findings = iOS(info, app: app.ios, limits: limits)
        case .android: findings = android(info, use: use, app: app.android)
        }
        for index in findings.indices { findings[index].platform = platform }
        findings.sort { $0.severity > $1.severity }
        return findings
    }

    /// The facts' own defects (``ImageInfo/findings``) as `platform` weighs them. On Android a mismatched
    /// Content-Type (A11: Glide never reads it, `HttpUrlFetcher` @ v4.16.0) and a heavy file (G4) are information,
    /// not warnings; every other defect is the same on both platforms.
    public static func weigh(_ facts: [Finding], on platform: RulePlatform) -> [Finding] {
        guard platform == .android else { return facts }
        return facts.map { finding in
            guard finding.severity > .info, let note = androidNotes[finding.code] else { return finding }
            var weighed = Finding(.info, finding.code, finding.message + " " + note, path: finding.path)
            weighed.platform = .android
            return weighed
        }
    }

    /// Defects Android weighs as information, and why: A11 (Glide sniffs the bytes), G4 (Glide downsamples at
    /// decode: a heavy file costs data, never a broken or janky cell).
    static let androidNotes: [String: String] = [
        ImageFindingCode.contentTypeMismatch: "Glide on Android sniffs the bytes and ignores the header.",
        ImageFindingCode.tooManyBytes: "On Android only data is lost: Glide downsamples it to the cell.",
    ]

    // MARK: iOS

    static func iOS(_ info: ImageInfo, app: IOSAppSettings, limits: ImageLimits) -> [Finding] {
        var findings: [Finding] = []
        let name = ImageSniffer.formatName(info.format)
        if let row = ImageFormatTables.row(in: ImageFormatTables.iOS, for: info), let since = row.since,
            since > app.deploymentTarget
        {
            findings.append(
                Finding(
                    row.below, ImageFindingCode.requiresNewerOS,
                    "\(name) images decode only on iOS \(since) and later; the app supports iOS "
                        + "\(app.deploymentTarget), where the cell shows no image."))
        }
        if info.appleCgBI {
            findings.append(
                .info(
                    ImageFindingCode.appleOptimizedPNG,
                    "An Apple-optimised PNG (CgBI): iOS shows it; Android and browsers cannot decode it."))
        }
        if let width = info.width, let height = info.height, let decoded = info.decodedByteCount {
            let size = "\(width)×\(height)"
            if decoded > limits.decodedBytesError {
                findings.append(
                    .error(
                        ImageFindingCode.tooManyPixels,
                        "\(size) pixels decode to \(ByteCountText.format(decoded)) (over "
                            + "\(ByteCountText.format(limits.decodedBytesError))); iOS may fail to decode it or kill "
                            + "the app for memory."))
            } else if decoded > limits.decodedBytesWarning {
                findings.append(
                    .warning(
                        ImageFindingCode.largeDecodedMemory,
                        "\(size) pixels decode to \(ByteCountText.format(decoded)) (over "
                            + "\(ByteCountText.format(limits.decodedBytesWarning))) for one inbox cell on iOS."))
            }
            let threshold = saturating(limits.downsamplePixelSize, limits.oversizeFactor)
            if Swift.max(width, height) > threshold, decoded <= limits.decodedBytesWarning {
                findings.append(
                    .warning(
                        ImageFindingCode.oversized,
                        "\(size) is far larger than the iOS SDK's \(limits.downsamplePixelSize)-px downsample; "
                            + "serve at most \(threshold) px on the longest side."))
            }
        }
        if info.animated {
            let frames = info.frameCount.map { " with \($0) frames" } ?? ""
            findings.append(
                .info(
                    ImageFindingCode.animated,
                    "Animated \(name)\(frames); an iOS image view shows only the first frame unless the app "
                        + "animates it."))
        }
        return findings
    }

    // MARK: Android

    static func android(_ info: ImageInfo, use: ImageUse, app: AndroidAppSettings) -> [Finding] {
        var findings: [Finding] = []
        let name = ImageSniffer.formatName(info.format)
        let floor = AndroidVersion.name(api: app.minSdk)
        if let row = ImageFormatTables.row(in: ImageFormatTables.android, for: info) {
            if row.never {
                if row.variant == .appleCgBI {
                    findings.append(
                        .error(
                            AndroidFindingCode.imageCgBI,
                            "An Apple-optimised PNG (CgBI, Xcode's crushed PNG): Android's decoder (Skia) rejects "
                                + "it, so the Android \(use.described) stays empty. Serve a standard PNG."))
                } else {
                    findings.append(
                        .error(
                            AndroidFindingCode.imageUnsupportedFormat,
                            "\(name) images do not decode on Android (no Glide 4.16 or platform decoder): the "
                                + "\(use.described) stays empty. Serve PNG, JPEG or WebP."))
                }
            } else if let since = row.since, since > app.minSdk {
                findings.append(
                    .warning(
                        AndroidFindingCode.imageRequiresNewerAPI,
                        "\(name) decodes from \(AndroidVersion.name(api: since)); the app supports \(floor), "
                            + "where the \(use.described) stays empty."))
            } else if let guaranteed = row.guaranteedFrom, guaranteed > app.minSdk {
                findings.append(
                    .warning(
                        AndroidFindingCode.imageRequiresNewerAPI,
                        "\(name) decodes from \(AndroidVersion.name(api: row.since ?? guaranteed)) but its decoder "
                            + "is mandatory only from \(AndroidVersion.name(api: guaranteed)); the app supports "
                            + "\(floor), where some devices leave the \(use.described) empty."))
            }
        }
        findings += animation(info, use: use, app: app)
        return findings
    }

    /// A6/A7: Glide decodes animated WebP (API 28+) and animated AVIF (API 31+) to `AnimatedImageDrawable`
    /// (`AnimatedImageDecoder`, RegistryFactory.java @v4.16.0). GIF goes to Glide's own decoder, whose
    /// transformations apply per frame: fine everywhere.
    static func animation(_ info: ImageInfo, use: ImageUse, app: AndroidAppSettings) -> [Finding] {
        guard info.animated, info.format == .webp || info.format == .avif else { return [] }
        let name = ImageSniffer.formatName(info.format)
        let animatesFrom = info.format == .webp ? 28 : 31
        if use.androidTransformRequired {
            return [
                .error(
                    AndroidFindingCode.imageAnimated,
                    "Animated \(name) in the Android \(use.described): from \(AndroidVersion.name(api: animatesFrom)) "
                        + "Glide decodes it as an AnimatedImageDrawable, which the cell's required crop/rounding "
                        + "cannot convert (\"Unable to convert … to a Bitmap\"), so the cell stays empty. Serve a "
                        + "still image or a GIF.")
            ]
        }
        if info.format == .avif {
            // AVIF decodes from API 31 at all (A5 says so below it); where it decodes, it animates.
            return [
                .info(
                    AndroidFindingCode.imageAnimated,
                    "Animated AVIF in the Android \(use.described): it animates wherever AVIF decodes (from "
                        + "\(AndroidVersion.name(api: animatesFrom))).")
            ]
        }
        if app.minSdk >= animatesFrom {
            return [
                .info(
                    AndroidFindingCode.imageAnimated,
                    "Animated \(name) in the Android \(use.described): it animates on every supported API level.")
            ]
        }
        return [
            .warning(
                AndroidFindingCode.imageAnimated,
                "Animated \(name) in the Android \(use.described): it animates from "
                    + "\(AndroidVersion.name(api: animatesFrom)); below, down to the app's "
                    + "\(AndroidVersion.name(api: app.minSdk)), it shows as a still image.")
        ]
    }

    static func saturating(_ a: Int, _ b: Int) -> Int {
        let (product, overflow) = a.multipliedReportingOverflow(by: b)
        return overflow ? .max : product
    }
}
