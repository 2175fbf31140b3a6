import Findings
import InboxCards

// What is wrong, each thing said once where a reader looks for it: root causes at the top, then on each card
// its degrade reason, its failing assets and the findings those do not already say.
extension HTMLReport {
    /// Cards a root cause lists by name at the top; the rest are counted.
    static let maxCauseCards = 50

    /// Each host that fails every request, stated once at the top (as the text report does) with the cards it
    /// explains, folded; those cards' assets point here (`#rc0`) instead of repeating the sentence.
    static func writeRootCauses(_ report: CheckReport, to out: inout String) {
        guard !report.rootCauses.isEmpty else { return }
        var explained = [[CardCheck]](repeating: [], count: report.rootCauses.count)
        for check in report.cards {
            for cause in report.rootCauses(of: check) {
                if let index = causeIndex(cause, in: report) { explained[index].append(check) }
            }
        }
        out += "<div class=\"root-causes\"><b>Root causes</b><ul class=\"findings\">"
        for (index, cause) in report.rootCauses.enumerated() {
            out += "<li class=\"\(cause.finding.severity.rawValue)\" id=\"rc\(index)\""
            out += " data-root-cause=\"\(Markup.attribute(cause.id))\">"
            writeFindingBody(cause.finding, to: &out)
            let cards = explained[index]
            if !cards.isEmpty {
                out += "<details class=\"explains\"><summary>\(CheckTextReport.plural(cards.count, "card"))</summary>"
                out += "<ul>"
                for check in cards.prefix(maxCauseCards) {
                    let card = check.card
                    let target = [card.profileName, card.platform.rawValue, card.language].compactMap { $0 }
                    out += "<li><code>\(Markup.text(Redaction.redactURL(card.id)))</code> "
                    out += "<span class=\"path\">\(Markup.text(target.joined(separator: " ")))</span></li>"
                }
                if cards.count > maxCauseCards { out += "<li>… and \(cards.count - maxCauseCards) more</li>" }
                out += "</ul></details>"
            }
            out += "</li>"
        }
        out += "</ul></div>\n"
    }

    /// The position of a root cause in the report (its anchor `rcN`).
    static func causeIndex(_ cause: RootCause, in report: CheckReport) -> Int? {
        report.rootCauses.firstIndex { $0.id == cause.id }
    }

    /// Degrade reason and SDK line, failing assets, and the card's other findings — each said once: the box of a
    /// broken card is what its `card.broken` findings say (which needed asset fails, and the asset's findings), so
    /// the findings list leaves them out; an asset under a root cause points to it instead of repeating it.
    static func writeProblems(_ check: CardCheck, report: CheckReport, to out: inout String) {
        let card = check.card
        if card.degraded {
            out += "<div class=\"reason warn\"><b>Renders as \(card.resolved.rawValue) instead of "
            out += "\(card.requested.rawValue)</b>"
            if let reason = card.degradeReason { out += ": \(Markup.text(Redaction.redactText(reason)))" }
            if let log = card.sdkLog { out += "<br><code>\(Markup.text(Redaction.redactText(log)))</code>" }
            out += "</div>\n"
        }
        var findings = check.findings
        let failing = check.assets.filter { $0.status == .failed }
        if !failing.isEmpty {
            // The box states the card's `card.broken` findings: each under the asset it names, the rest (a message
            // that names no URL) on the heading, with their verdict (suppressed, known).
            var broken = findings.filter { $0.code == AssetFindingCode.cardBroken }
            findings.removeAll { $0.code == AssetFindingCode.cardBroken }
            out += "<div class=\"reason \(check.broken ? "bad" : "warn")\">"
            out += "<b>\(check.broken ? "Broken: a needed asset fails" : "Failing assets")</b>"
            if !broken.isEmpty { out += " <code>\(AssetFindingCode.cardBroken)</code>" }
            var items = ""
            for asset in failing {
                let url = Redaction.redactURL(asset.url)
                // `hero image URL fails (HTTP 404): …`, as the pipeline words it.
                let own = broken.firstIndex { $0.message.contains(url + " fails") }.map { broken.remove(at: $0) }
                items += "<li><span class=\"role\">\(asset.role.rawValue)\(asset.index.map { "[\($0)]" } ?? "")</span>"
                items += "\(asset.needed ? " (needed)" : "") <code>\(Markup.text(url))</code>"
                if let own { writeExcuse(own, to: &items) }
                if let cause = report.rootCause(of: asset.url), let index = causeIndex(cause, in: report) {
                    items += " — root cause <a href=\"#rc\(index)\">\(Markup.text(Redaction.redactText(cause.id)))</a>"
                } else {
                    items += " — \(Markup.text(failureText(asset)))"
                    writeFindings(asset.findings, to: &items)
                }
                items += "</li>"
            }
            for finding in broken { writeExcuse(finding, to: &out) }
            out += "<ul class=\"assets\">\(items)</ul></div>\n"
        }
        findings += check.assets.filter { $0.status != .failed }.flatMap(\.findings)
        guard !findings.isEmpty else { return }
        let serious = findings.contains { $0.severity >= .warning }
        out += "<details class=\"card-findings\"\(serious ? " open" : "")><summary>\(findings.count) finding"
        out += "\(findings.count == 1 ? "" : "s")</summary>"
        writeFindings(findings, to: &out)
        out += "</details>\n"
    }

    static func writeFindings(_ findings: [Finding], to out: inout String) {
        guard !findings.isEmpty else { return }
        out += "<ul class=\"findings\">"
        for finding in findings {
            out += "<li class=\"\(finding.severity.rawValue)\">"
            writeFindingBody(finding, to: &out)
            out += "</li>"
        }
        out += "</ul>"
    }

    static func writeFindingBody(_ finding: Finding, to out: inout String) {
        out +=
            "<span class=\"sev\">\(finding.severity.rawValue)</span> <code>\(Markup.text(Redaction.redactText(finding.code)))</code> "
        if let label = finding.platformLabel { out += "<span class=\"path\">\(label)</span> " }
        out += Markup.text(Redaction.redactText(finding.message))
        if let path = finding.path {
            out += " <span class=\"path\">at \(Markup.text(Redaction.redactURL(path)))</span>"
        }
        writeExcuse(finding, to: &out)
    }

    /// What excuses a finding from failing the run: an `ignore` rule's reason, the baseline.
    static func writeExcuse(_ finding: Finding, to out: inout String) {
        guard let verdict = finding.verdict else { return }
        if let reason = verdict.suppressed {
            out += " <span class=\"excused\">suppressed: \(Markup.text(Redaction.redactText(reason)))</span>"
        }
        if verdict.baseline == .known { out += " <span class=\"excused\">known (baseline)</span>" }
    }

    /// `HTTP 404`, `not-an-image`, … for a failed asset.
    static func failureText(_ asset: AssetCheck) -> String {
        // The card's platform does not show bytes that are fine elsewhere: say which rule, not a fetch failure.
        if asset.failure?.hasPrefix("unsupported-on-") == true || asset.failure == "cleartext-blocked",
            let rule = asset.findings.first(where: { $0.platform != nil && $0.severity == .error })
        {
            let platform = rule.platform.map(\.displayName) ?? ""
            let what = asset.failure == "cleartext-blocked" ? "blocks plain http://" : "does not show it"
            return "\(platform) \(what) (\(Redaction.redactText(rule.code)))"
        }
        var parts: [String] = []
        if let status = asset.httpStatus, !(200..<300).contains(status) { parts.append("HTTP \(status)") }
        if let failure = asset.failure { parts.append(Redaction.redactText(failure)) }
        return parts.isEmpty ? asset.status.rawValue : parts.joined(separator: ", ")
    }
}
