public import AssetStore
import Findings

/// Human renderings of `inbox-assets store stats|ls|verify|gc`.
public enum StoreTextReport {
    public static func stats(_ stats: StoreStats, directory: String) -> String {
        var table = TextTable(header: ["STORE", directory])
        table.append(["entries (URLs)", "\(stats.entries)"])
        table.append(["blobs", "\(stats.blobs) (\(ByteCount.format(stats.bytes)))"])
        table.append(["orphan blobs", "\(stats.orphans) (\(ByteCount.format(stats.orphanBytes)))"])
        table.append(["temporary files", "\(stats.tempFiles)"])
        table.append(["index records", "\(stats.records) (\(ByteCount.format(stats.indexBytes)))"])
        table.append(["damaged records", "\(stats.damagedRecords)"])
        return table.render(TextStyle(color: false))
    }

    public static func list(_ entries: [StoredURL], style: TextStyle) -> String {
        var table = TextTable(header: ["URL", "SIZE", "TYPE", "STATUS", "SHA-256"])
        for item in entries {
            table.append([
                Redaction.redactURL(item.url), ByteCount.format(item.entry.blob.size), item.entry.contentType ?? "-",
                "\(item.entry.httpStatus)", String(item.entry.blob.sha256.prefix(16)),
            ])
        }
        return table.render(style) + "\(entries.count) entr\(entries.count == 1 ? "y" : "ies")\n"
    }

    public static func verify(_ report: VerifyReport, style: TextStyle) -> String {
        var text = ""
        for problem in report.problems {
            text += ResolveTextReport.line(problem.finding, style: style) + "\n"
        }
        let verdict = report.isClean ? (report.isSpotless ? "clean" : "clean (debris that gc removes)") : "DAMAGED"
        let summary =
            "\(verdict): \(report.blobsChecked) blobs (\(ByteCount.format(report.bytesChecked))), "
            + "\(report.recordsChecked) records, \(report.entriesChecked) entries checked"
        return text + style.apply(report.isClean ? .green : .red, summary) + "\n"
    }

    public static func gc(_ report: GCReport) -> String {
        var text =
            "removed \(report.removedTempFiles) temporary files, \(report.removedOrphans) orphan blobs "
            + "(kept \(report.keptYoungOrphans) younger than the grace period), dropped \(report.droppedRecords) records\n"
        if report.removedNonFiles > 0 {
            text += "removed \(report.removedNonFiles) non-files (directories, links, FIFOs) where blobs belong\n"
        }
        if report.removedExportStaging > 0 {
            text += "removed \(report.removedExportStaging) staging directories of interrupted exports\n"
        }
        if !report.evictedURLs.isEmpty {
            text +=
                "evicted \(report.evictedURLs.count) least-recently-used URLs (\(report.removedEvictedBlobs) blobs):\n"
            for url in report.evictedURLs { text += "  \(ControlCharacters.escaped(Redaction.redactURL(url)))\n" }
        }
        text += "freed \(ByteCount.format(report.freedBytes)); \(ByteCount.format(report.bytesAfter)) left"
        return text + (report.compacted ? "; index compacted\n" : "\n")
    }
}

/// Byte counts for people: `512 B`, `1.5 KiB`, `12.3 MiB`.
public enum ByteCount {
    public static func format(_ bytes: Int) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        if unit == 0 { return "\(bytes) B" }
        let tenths = (value * 10).rounded() / 10
        return "\(tenths) \(units[unit])"
    }
}
