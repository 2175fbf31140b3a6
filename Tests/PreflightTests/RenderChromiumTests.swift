import Foundation
import InboxCards
import StrictJSON
import TestSupport
import Testing

@testable import Preflight

/// Headless Chromium (Debian `chromium`), run as a child process with its own throw-away profile.
enum Chromium {
    /// The browser, when installed. `.ci/run` installs it, so CI always runs the tests below.
    static let path: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs chromium headless on `page` with `arguments`; returns its standard output.
    /// `--no-sandbox`: the sandbox needs user namespaces that CI containers running as root do not have.
    /// Killed after `timeout` seconds so a wedged browser fails the test instead of hanging it. Its output goes to a
    /// file, not a pipe: the browser's helper processes can keep a pipe open after the browser itself exits.
    static func run(_ arguments: [String], page: URL, in directory: URL, timeout: Double = 60) async throws
        -> Data
    {
        guard let path else { throw Failure(description: "chromium is not installed") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments =
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--hide-scrollbars", "--user-data-dir=\(directory.appendingPathComponent("profile").path)",
            ] + arguments + [page.absoluteString]
        let outputURL = directory.appendingPathComponent("stdout-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: outputURL.path, contents: nil) else {
            throw Failure(description: "cannot create \(outputURL.path)")
        }
        let output = try FileHandle(forWritingTo: outputURL)
        defer { try? output.close() }
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = directory.path  // chromium writes caches under $HOME
        process.environment = environment
        try Spawning.run(process)
        guard await Child.wait(for: process, timeout: timeout) else {
            process.terminate()
            await Child.wait(for: process)
            throw Failure(description: "chromium did not finish within \(Int(timeout)) s")
        }
        guard process.terminationStatus == 0 else {
            throw Failure(description: "chromium exited with status \(process.terminationStatus)")
        }
        return try Data(contentsOf: outputURL)
    }

    /// Width and height from a PNG's IHDR chunk, `nil` when the bytes are not a PNG.
    static func pngSize(_ png: Data) -> (width: Int, height: Int)? {
        let bytes = [UInt8](png.prefix(24))
        guard bytes.count == 24, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
            bytes[12..<16].elementsEqual("IHDR".utf8)
        else { return nil }
        func be32(_ offset: Int) -> Int { bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (be32(16), be32(20))
    }
}

@Suite(.serialized)
struct RenderChromiumTests {
    static let width = 480
    static let height = 2400

    /// A directory of its own for every test run, removed afterwards.
    static func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("render-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(directory)
    }

    static func screenshot(of html: String, named name: String, width: Int = width, in directory: URL) async throws
        -> Data
    {
        let page = try write(html, named: name, in: directory)
        let png = directory.appendingPathComponent("\(name).png")
        _ = try await Chromium.run(
            networkOff + ["--screenshot=\(png.path)", "--window-size=\(width),\(height)"], page: page, in: directory)
        return try Data(contentsOf: png)
    }

    // Skipped with this reason when the browser is missing (a developer machine); `.ci/run` installs `chromium`.
    @Test(.enabled(if: Chromium.path != nil, "chromium is not installed: apt-get install chromium"))
    func everyCardIsInTheDOM() async throws {
        let report = RenderFixtures.report()
        let html = HTMLReport.render(report, image: RenderFixtures.storedImage)
        let dom = try await Self.withTemporaryDirectory { directory in
            let page = directory.appendingPathComponent("report.html")
            try html.write(to: page, atomically: true, encoding: .utf8)
            return String(decoding: try await Chromium.run(["--dump-dom"], page: page, in: directory), as: UTF8.self)
        }
        #expect(dom.contains("<h1>Inbox preview</h1>"))
        #expect(dom.components(separatedBy: "<article ").count - 1 == report.cards.count)
        for card in report.cards {
            #expect(dom.contains("data-card-id=\"\(card.card.id)\""), "\(card.card.id) is not in the DOM")
        }
        #expect(!dom.contains("SECRET"))
        #expect(!dom.contains("<script"), "hostile button text became an element")
    }

    /// No name resolves and every connection goes to a closed port: a page that asked for anything would fail.
    static let networkOff = ["--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9"]

    /// A script appended to a copy of the page (the report's own CSP forbids scripts) that measures the layout once
    /// it is drawn: feeds, the visible ones and their columns, each carousel strip (slides, scrollable), the tallest
    /// pin chip, and every resource the page requested (Resource Timing; `data:` images are not requests).
    static let probe = """
        <script>setTimeout(function(){
        var all=function(s,r){return [].slice.call((r||document).querySelectorAll(s))};
        var feeds=all(".feed"),shown=feeds.filter(function(f){return getComputedStyle(f).display!="none"});
        var lefts={};shown.forEach(function(f){lefts[Math.round(f.getBoundingClientRect().left)]=1});
        var strips=[];shown.forEach(function(f){all(".slides",f).forEach(function(s){
        strips.push({slides:all("figure",s).length,scrollable:s.scrollWidth>s.clientWidth})})});
        var pin=0;all(".pin").forEach(function(p){pin=Math.max(pin,p.getBoundingClientRect().height)});
        document.body.setAttribute("data-probe",JSON.stringify({feeds:feeds.length,shown:shown.length,
        columns:Object.keys(lefts).length,strips:strips,pinHeight:pin,
        requests:performance.getEntriesByType("resource").map(function(e){return e.name})}))},300)</script>
        """

    /// The page as Chromium lays it out at `width` px with the network off: the probe's measurements (a script that
    /// sets `data-probe` on the body to its JSON).
    static func measure(_ html: String, width: Int, probe: String = probe, in directory: URL) async throws -> JSONValue
    {
        var page = html
        if let start = page.range(of: "<meta http-equiv=\"Content-Security-Policy\""),
            let end = page[start.upperBound...].range(of: ">")
        {
            page.removeSubrange(start.lowerBound..<end.upperBound)
        }
        page = page.replacingOccurrences(of: "</body>", with: probe + "</body>")
        let file = directory.appendingPathComponent("probe-\(width).html")
        try page.write(to: file, atomically: true, encoding: .utf8)
        let dom = String(
            decoding: try await Chromium.run(
                networkOff + ["--virtual-time-budget=5000", "--window-size=\(width),1600", "--dump-dom"], page: file,
                in: directory), as: UTF8.self)
        guard let start = dom.range(of: "data-probe=\""), let end = dom[start.upperBound...].firstIndex(of: "\"") else {
            throw Chromium.Failure(description: "the probe did not run")
        }
        let text = dom[start.upperBound..<end].replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
        return try JSON.parse(text)
    }

    /// The probe sees requests: a page with two outside images lists both (so an empty list means something).
    @Test(.enabled(if: Chromium.path != nil, "chromium is not installed: apt-get install chromium"))
    func probeSeesRequests() async throws {
        let page = """
            <!DOCTYPE html><html><head><meta charset="utf-8"></head><body>
            <div style="background:url(http://example.invalid/a.png)">a</div><img src="https://example.invalid/b.png">
            </body></html>
            """
        let measured = try await Self.withTemporaryDirectory { try await Self.measure(page, width: 390, in: $0) }
        #expect(measured["requests"]?.arrayValue?.count == 2)
    }

    /// The demo on both platforms, as a marketer opens it on a laptop (1280 px: every feed side by side) and on a
    /// phone (390 px: one feed, tabs), with the network off: every slide in a strip that scrolls, the pin chip on
    /// one line, each image once as data, no request.
    @Test(.enabled(if: Chromium.path != nil, "chromium is not installed: apt-get install chromium"))
    func demoFeedsOnALaptopAndAPhone() async throws {
        let outcome = try await RenderDemoTests.demoOutcome(ResolveOptions(platforms: [.ios, .android]))
        let report = outcome.report
        let html = HTMLReport.render(report, image: outcome.body(for:))
        let feeds = HTMLReport.feeds(report.cards)
        #expect(feeds.count == 6, "iOS en/de/es, Android en/de/es")
        try await Self.withTemporaryDirectory { directory in
            let laptop = try await Self.measure(html, width: 1280, in: directory)
            #expect(laptop["feeds"] == .int(feeds.count))
            #expect(laptop["shown"] == .int(feeds.count), "every feed is shown on a wide screen")
            #expect(laptop["columns"] == .int(feeds.count), "side by side")
            let phone = try await Self.measure(html, width: 390, in: directory)
            #expect(phone["shown"] == 1, "one feed at a time on a phone, the others behind tabs")
            #expect(phone["columns"] == 1)
            for measured in [laptop, phone] {
                #expect(measured["requests"] == [], "the page requests nothing")
                let strips = try #require(measured["strips"]?.arrayValue)
                #expect(!strips.isEmpty)
                for strip in strips where (strip["slides"]?.numberValue?.intValue ?? 0) > 1 {
                    #expect(strip["scrollable"] == true, "\(strip)")
                }
                let pin = try #require(measured["pinHeight"]?.numberValue?.doubleValue)
                #expect(pin > 0 && pin < 24, "the pin chip stays on one line (\(pin) px)")
            }
            // Every slide of every carousel is in the page, in the feeds where its card is.
            let laptopSlides = try #require(laptop["strips"]?.arrayValue).compactMap {
                $0["slides"]?.numberValue?.intValue
            }
            let expected = feeds.flatMap(\.cards).filter { $0.card.resolved == .carousel }.map { check in
                check.assets.filter { $0.role == .carouselSlide }.count
            }
            #expect(laptopSlides == expected)

            let dom = String(
                decoding: try await Chromium.run(
                    Self.networkOff + ["--dump-dom"], page: try Self.write(html, named: "demo", in: directory),
                    in: directory), as: UTF8.self)
            #expect(!dom.contains("<img"))
            let uris = dom.components(separatedBy: "url(\"data:").dropFirst().map { $0.prefix { $0 != "\"" } }
            #expect(!uris.isEmpty)
            #expect(Set(uris).count == uris.count, "each image once as data")
            for shot in [(1280, "laptop"), (390, "phone")] {
                let png = try await Self.screenshot(of: html, named: shot.1, width: shot.0, in: directory)
                #expect(Chromium.pngSize(png)?.width == shot.0)
            }
        }
    }

    /// Counts the cards and those whose hero Chromium draws from an embedded PNG, on a box of its own.
    static let heroProbe = """
        <script>setTimeout(function(){
        var cards=document.querySelectorAll("article"),drawn=0;
        [].forEach.call(cards,function(c){var h=c.querySelector(".img.hero");if(!h)return;
        var image=getComputedStyle(h).backgroundImage,box=h.getBoundingClientRect();
        if(image.indexOf('url("data:image/png;base64,')==0&&box.width>0&&box.height>0)drawn++});
        document.body.setAttribute("data-probe",JSON.stringify({cards:cards.length,drawn:drawn,
        requests:performance.getEntriesByType("resource").length}))},300)</script>
        """

    /// The campaign of issue 30 (2,000 tracking URLs of one image, fetched by the real pipeline): Chromium draws
    /// every one of the 2,000 cards with the image, from the one copy on the page, and requests nothing.
    @Test(.enabled(if: Chromium.path != nil, "chromium is not installed: apt-get install chromium"))
    func twoThousandTrackingURLsAllDrawTheirImage() async throws {
        let (_, html, _) = try await RenderOnceTests.trackingCampaign()
        let measured = try await Self.withTemporaryDirectory {
            try await Self.measure(html, width: 1280, probe: Self.heroProbe, in: $0)
        }
        #expect(measured["cards"] == 2000)
        #expect(measured["drawn"] == 2000)
        #expect(measured["requests"] == 0)
    }

    static func write(_ html: String, named name: String, in directory: URL) throws -> URL {
        let page = directory.appendingPathComponent("\(name).html")
        try html.write(to: page, atomically: true, encoding: .utf8)
        return page
    }

    @Test(.enabled(if: Chromium.path != nil, "chromium is not installed: apt-get install chromium"))
    func screenshotIsNotBlank() async throws {
        let report = RenderFixtures.report()
        let html = HTMLReport.render(report, image: RenderFixtures.storedImage)
        // The same background, nothing on it: what a page that failed to draw looks like.
        let empty =
            "<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body style=\"background:#f2f2f7\"></body></html>"
        let (shot, blank) = try await Self.withTemporaryDirectory { directory in
            (
                try await Self.screenshot(of: html, named: "report", in: directory),
                try await Self.screenshot(of: empty, named: "empty", in: directory)
            )
        }
        let size = try #require(Chromium.pngSize(shot), "the screenshot is not a PNG")
        #expect(size.width == Self.width && size.height == Self.height)
        #expect(Chromium.pngSize(blank) != nil)
        // A flat page compresses to almost nothing; cards, text and images do not.
        #expect(shot.count > blank.count * 10, "screenshot \(shot.count) B vs empty page \(blank.count) B")
    }
}
