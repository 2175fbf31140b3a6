import MediaProbe
import Testing

@Suite("Sniffer: what the bytes are")
struct SnifferTests {
    @Test(
        "text shapes",
        arguments: [
            ("<!DOCTYPE html><html><body>x</body></html>", MediaFormat.html),
            ("\u{FEFF}  \n<!doctype HTML>", .html),
            ("<html lang=en>", .html),
            ("<HEAD><title>503</title>", .html),
            ("<!-- cdn error --><p>nope</p>", .html),
            ("<p>Forbidden</p>", .html),
            ("<a href=x>moved</a>", .html),
            ("<svg xmlns=\"http://www.w3.org/2000/svg\"/>", .svg),
            ("<?xml version=\"1.0\"?>\n<!-- made by hand -->\n<svg width=\"1\"/>", .svg),
            ("<?xml version=\"1.0\"?><Error><Code>AccessDenied</Code></Error>", .xml),
            ("<svgfoo/>", .html),
            ("{\"error\": \"not found\"}", .json),
            ("  [1, 2]", .json),
            ("Access denied", .text),
            ("BMW is not a bitmap", .text),
            ("GIF is a word", .text),
            ("#EXTM3U\n#EXT-X-VERSION:3", .hls),
            ("%PDF-1.7", .pdf),
            ("    ", .text),
        ])
    func text(_ text: String, expected: MediaFormat) {
        #expect(MediaSniffer.sniff(Array(text.utf8)) == expected)
    }

    @Test(
        "binary signatures",
        arguments: [
            ([0xFF, 0xD8, 0xFF, 0xE0], MediaFormat.jpeg),
            (ascii("GIF87a") + [1, 0, 1, 0], .gif),
            (ascii("RIFF") + le32(4) + ascii("WEBP"), .webp),
            (ascii("RIFF") + le32(4) + ascii("WAVE"), .unknown),
            (box("ftyp", ascii("isom") + be32(0) + ascii("isomavc1")), .mp4),
            (box("ftyp", ascii("qt  ") + be32(0)), .quickTime),
            (box("ftyp", ascii("mif1") + be32(0) + ascii("mif1avif")), .avif),
            (box("ftyp", ascii("msf1") + be32(0) + ascii("msf1hevc")), .heic),
            (box("ftyp", ascii("mif1") + be32(0) + ascii("mif1")), .heif),
            (box("ftyp", ascii("avis") + be32(0)), .avif),
            (box("moov", []), .quickTime),
            (box("styp", ascii("msdh")), .mp4),
            ([0x1A, 0x45, 0xDF, 0xA3, 0x42, 0x82, 0x84] + ascii("webm"), .webm),
            ([0x1A, 0x45, 0xDF, 0xA3, 0x42, 0x82, 0x88] + ascii("matroska"), .matroska),
            ([0x1A, 0x45, 0xDF, 0xA3], .matroska),
            (ascii("II*\0") + le32(8), .tiff),
            (ascii("MM\0*") + be32(8), .tiff),
            ([0, 0, 1, 0, 1, 0, 16, 16], .ico),
            ([0, 0, 1, 0, 0, 0], .unknown),
            ([0x00, 0x01, 0x02, 0x03], .unknown),
            ([], .empty),
        ] as [([UInt8], MediaFormat)])
    func binary(_ bytes: [UInt8], expected: MediaFormat) {
        #expect(MediaSniffer.sniff(bytes) == expected)
    }

    @Test("MPEG-TS needs sync bytes at every packet start it can see")
    func transportStream() {
        let packet = [0x47] + [UInt8](repeating: 0, count: 187)
        #expect(MediaSniffer.sniff(packet + packet + packet) == .mpegTS)
        #expect(MediaSniffer.sniff(packet) == .mpegTS)
        var broken = packet + packet
        broken[188] = 0x00
        #expect(MediaSniffer.sniff(broken) != .mpegTS)
        #expect(MediaSniffer.sniff(Array("Grüße".utf8)) == .text)
    }

    @Test("sniffing a 64 MiB buffer looks only at its start")
    func boundedWork() {
        var bytes = Array("<html>".utf8)
        bytes += [UInt8](repeating: 0x20, count: 64 << 20)
        #expect(MediaSniffer.sniff(bytes) == .html)
    }

    @Test(
        "Content-Type essence",
        arguments: [
            ("image/PNG", "image/png"), (" text/html ; charset=UTF-8", "text/html"), ("", nil), (";", nil),
        ] as [(String, String?)])
    func essence(_ header: String, expected: String?) {
        #expect(MediaContentType.essence(header) == expected)
    }
}
