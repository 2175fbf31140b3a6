/// Hard limits on a `.pkpass` (rule A5), all checked from the ZIP headers before anything is inflated.
public struct PassLimits: Sendable, Hashable {
    /// Largest archive accepted, in bytes (10 MiB).
    public var maxArchiveBytes: Int = 10 << 20
    /// Largest `.pkpasses` bundle accepted, in bytes (32 MiB): its entries are passes, each up to
    /// ``maxArchiveBytes``.
    public var maxBundleBytes: Int = 32 << 20
    /// Most entries accepted (256).
    public var maxEntries: Int = 256
    /// Largest uncompressed entry (4 MiB).
    public var maxEntryBytes: Int = 4 << 20
    /// Largest sum of uncompressed entry sizes (32 MiB).
    public var maxTotalBytes: Int = 32 << 20
    /// Highest uncompressed:compressed ratio of an entry larger than ``ratioFloorBytes`` (zip bomb).
    public var maxCompressionRatio: Int = 100
    /// Entries up to this size are exempt from the ratio check (small JSON compresses well legitimately).
    public var ratioFloorBytes: Int = 1 << 20
    /// Largest image side in pixels (4096).
    public var maxImageSide: Int = 4096
    /// Deepest JSON nesting accepted in pass.json / manifest.json.
    public var maxJSONDepth: Int = 64

    /// The product defaults.
    public init() {}
}
