import Findings
import StrictJSON

/// Whether an inbox shows a message at all (android-inbox.md §3), per platform, at a moment (`--at`).
///
/// A message that is not shown gets no card; its findings say why (they become input findings of the run). A
/// message that is shown may still carry warnings (an expiry the SDK cannot read), which go into its cards.
enum Visibility {
    struct Verdict {
        var shown = true
        var findings: [Finding] = []
    }

    static func judge(_ message: InboxMessage, on platform: Platform, at: Int64) -> Verdict {
        var verdict = Verdict()
        let delivery = message.delivery
        let name = platform == .ios ? "iOS" : "Android"
        func hide(_ severity: Severity, _ code: String, _ text: String, path: String?) {
            verdict.shown = false
            verdict.findings.append(.redacted(severity, code, "\(text) (\(platform.rawValue): no card)", path: path))
        }
        func warn(_ severity: Severity, _ code: String, _ text: String, path: String?) {
            verdict.findings.append(.redacted(severity, code, text, path: path))
        }
        switch message.shape {
        case .feed:
            if !delivery.missingFeedKeys.isEmpty {
                let keys = delivery.missingFeedKeys.joined(separator: ", ")
                hide(
                    .warning, CardFindingCode.feedKeyMissing,
                    "feed message without \(keys): the \(name) SDK drops it (it requires inbox_id, order, rt, text, "
                        + "action_type and status)", path: message.path.isEmpty ? nil : message.path)
                return verdict
            }
            if platform == .android {
                // `getInt(action_type)`, `getInt(status)`, `Long.parseLong(getString(order|rt))` throw on other values,
                // and `GetInboxMessagesResponse` catches only the missing-key exception per message [SRC @b591d3c].
                let checks: [(Delivery.Field?, String, (JSONValue) -> Bool)] = [
                    (delivery.actionType, "action_type", { orgJSONInt($0) != nil }),
                    (delivery.status, "status", { orgJSONInt($0) != nil }),
                    (delivery.order, "order", { parseLong($0) != nil }),
                    (delivery.expiry, "rt", { parseLong($0) != nil }),
                ]
                for (field, key, valid) in checks {
                    guard let field, !valid(field.value) else { continue }
                    hide(
                        .warning, CardFindingCode.feedValueInvalid,
                        "\(key) \(quoted(field.value)) is not an integer: the Android SDK cannot parse the message and "
                            + "drops it; the exception is not caught per message, so the rest of that feed page may "
                            + "be lost too (inferred from the source)", path: field.path)
                    return verdict
                }
            }
            if let status = delivery.status {
                // Beyond Int64 no status is 4 or 5 (a fuzzed 1e300 trapped in `Int(_:)` here).
                let code = number(status.value).flatMap { Int64(exactly: $0.rounded(.towardZero)) }
                switch (platform, code) {
                case (_, 4?):
                    hide(
                        .info, CardFindingCode.deleted, "status 4: deleted by the user, the \(name) inbox hides it",
                        path: status.path)
                    return verdict
                case (.android, 5?):
                    hide(
                        .info, CardFindingCode.deleted,
                        "status 5: deleted from the service, the Android inbox shows only statuses 0–3",
                        path: status.path)
                    return verdict
                case (.ios, 5?):
                    warn(
                        .info, CardFindingCode.deleted,
                        "status 5 (deleted from the service): the iOS SDK stores and shows it, Android hides it",
                        path: status.path)
                case (.android, let code?) where !(0...5).contains(code):
                    hide(
                        .warning, CardFindingCode.statusUnknown,
                        "status \(code) is no Android status code (0–5): storing it fails and, inferred from the "
                            + "source, the whole merge of that feed is rolled back", path: status.path)
                    return verdict
                default: break
                }
            }
            if let rt = delivery.expiry, let seconds = number(rt.value) {
                // Android shows `expired_date > now` (strict); iOS hides `expirationDate < now`.
                let expired = platform == .android ? seconds <= Double(at) : seconds < Double(at)
                if expired {
                    hide(
                        .warning, CardFindingCode.expired,
                        "rt \(Dates.moment(seconds)) is not after \(Dates.iso(at)): "
                            + "the message has expired", path: rt.path)
                }
            }
        case .push:
            judgePush(delivery, on: platform, at: at, hide: hide, warn: warn)
        case .createMessage:
            judgeNotification(delivery, at: at, hide: hide, warn: warn)
        }
        return verdict
    }

    private static func judgePush(
        _ delivery: Delivery, on platform: Platform, at: Int64,
        hide: (Severity, String, String, String?) -> Void, warn: (Severity, String, String, String?) -> Void
    ) {
        switch platform {
        case .ios:
            // iOS takes an inbox entry only with `pw_inbox` and `inbox_params.rt`, parsed as `yyyy-MM-dd`.
            guard let rt = delivery.expiry else {
                hide(
                    .warning, CardFindingCode.expiryInvalid,
                    "push without inbox_params.rt: the iOS SDK takes no inbox entry from it", nil)
                return
            }
            guard case .string(let text) = rt.value, let day = Dates.day(text) else {
                warn(
                    .info, CardFindingCode.expiryInvalid,
                    "inbox_params.rt \(quoted(rt.value)) is not a yyyy-MM-dd date: the iOS SDK reads no expiry, "
                        + "the message never expires on iOS", rt.path)
                return
            }
            if day < at {
                hide(
                    .warning, CardFindingCode.expired,
                    "inbox_params.rt \(text) is before \(Dates.iso(at)): the message has expired", rt.path)
            }
        case .android:
            // `inboxParams.getLong("rt")`: epoch seconds. Without one the expiry stays 0 and the row is never shown.
            guard let rt = delivery.expiry else {
                hide(
                    .warning, CardFindingCode.expiryInvalid,
                    "push without inbox_params.rt: the Android SDK keeps expiry 0 and, inferred from the source, "
                        + "never shows the entry", nil)
                return
            }
            // `getLong` reads a value as `getInt` does.
            guard let seconds = orgJSONInt(rt.value) else {
                hide(
                    .warning, CardFindingCode.expiryInvalid,
                    "inbox_params.rt \(quoted(rt.value)) is not epoch seconds: the Android SDK fails to read "
                        + "inbox_params (\"Problem with parsing inboxParams\"), keeps expiry 0 and, inferred from the "
                        + "source, never shows the entry", rt.path)
                return
            }
            if seconds <= at {
                hide(
                    .warning, CardFindingCode.expired,
                    "inbox_params.rt \(seconds) (\(Dates.iso(seconds))) is not after \(Dates.iso(at)): "
                        + "the message has expired", rt.path)
            }
        }
    }

    private static func judgeNotification(
        _ delivery: Delivery, at: Int64,
        hide: (Severity, String, String, String?) -> Void, warn: (Severity, String, String, String?) -> Void
    ) {
        var sendTime = at
        if let send = delivery.sendDate {
            if case .string(let text) = send.value, text == "now" {
                sendTime = at
            } else if case .string(let text) = send.value, let time = Dates.sendDate(text) {
                sendTime = time
            } else {
                warn(
                    .warning, CardFindingCode.expiryInvalid,
                    "send_date \(quoted(send.value)) is neither \"now\" nor \"YYYY-MM-DD HH:mm\"", send.path)
            }
        }
        guard let date = delivery.inboxDate else { return }
        guard case .string(let text) = date.value, let day = Dates.day(text) else {
            warn(
                .warning, CardFindingCode.expiryInvalid,
                "inbox_date \(quoted(date.value)) is not a YYYY-MM-DD date: when the inbox drops the message is "
                    + "unknown", date.path)
            return
        }
        // The message is kept "until this date": it is gone once that day has ended (UTC).
        let end = day + 86_400
        if end <= at {
            hide(
                .warning, CardFindingCode.expired,
                "inbox_date \(text) is in the past at \(Dates.iso(at)): the message has expired", date.path)
        } else if end <= sendTime {
            hide(
                .warning, CardFindingCode.expiresBeforeSend,
                "inbox_date \(text) ends before send_date \(Dates.iso(sendTime)): the message expires before it is "
                    + "sent", date.path)
        }
    }

    /// A number, or a string holding one (iOS `pw_numberForKey`/`pw_doubleForKey`).
    static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .number(let number): return number.doubleValue.isFinite ? number.doubleValue : nil
        case .string(let text): return Double(text).flatMap { $0.isFinite ? $0 : nil }
        default: return nil
        }
    }

    /// org.json `getInt`: a number, or a string `Double.valueOf` reads; truncated toward zero.
    static func orgJSONInt(_ value: JSONValue) -> Int64? {
        guard let double = number(value), abs(double) < 9.2e18 else { return nil }
        return Int64(double.rounded(.towardZero))
    }

    /// `Long.parseLong(getString(key))`: the value's text must be an integer (`1.5`, `1e3`, `"12.0"` are not).
    static func parseLong(_ value: JSONValue) -> Int64? {
        switch value {
        case .number(let number): return number.isInteger ? Int64(number.text) : nil
        case .string(let text): return Int64(text.hasPrefix("+") ? String(text.dropFirst()) : text)
        default: return nil
        }
    }

    static func quoted(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): "\"\(Redact.value(text))\""
        case .number(let number): number.text
        default: value.typeName
        }
    }
}

/// Calendar arithmetic for the inbox's dates, in UTC (the device's zone is unknown; the docs give none).
enum Dates {
    /// Days since 1970-01-01 of a civil date (Howard Hinnant's `days_from_civil`).
    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// `YYYY-MM-DD` → seconds at its midnight (UTC); `nil` when it is not a valid date.
    static func day(_ text: String) -> Int64? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let year = Int64(parts[0]), let month = Int64(parts[1]), let day = Int64(parts[2]),
            (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year)
        else { return nil }
        return days(year: year, month: month, day: day) * 86_400
    }

    /// A createMessage `send_date`, `YYYY-MM-DD HH:mm` or `YYYY-MM-DD`, → seconds (UTC).
    static func sendDate(_ text: String) -> Int64? { minute(text) ?? day(text) }

    /// `YYYY-MM-DD HH:mm` → seconds (UTC).
    static func minute(_ text: String) -> Int64? {
        let halves = text.split(separator: " ", omittingEmptySubsequences: false)
        guard halves.count == 2, let day = day(String(halves[0])) else { return nil }
        let clock = halves[1].split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 2, clock[0].count == 2, clock[1].count == 2, let hour = Int64(clock[0]),
            let minute = Int64(clock[1]), (0...23).contains(hour), (0...59).contains(minute)
        else { return nil }
        return day + hour * 3600 + minute * 60
    }

    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Epoch seconds as read from a payload, with their date where there is one: `1764547200
    /// (2025-12-01T00:00:00Z)`; a value no calendar reaches (±1e15 s and beyond, e.g. a fuzzed `-1e300`, which
    /// trapped in `Int64(_:)`) as its number alone.
    static func moment(_ seconds: Double) -> String {
        guard abs(seconds) < 1e15 else { return "\(seconds)" }
        let whole = Int64(seconds.rounded(.towardZero))
        return "\(whole) (\(iso(whole)))"
    }

    /// Seconds → `2026-12-01T15:03:00Z`.
    static func iso(_ seconds: Int64) -> String {
        let date = CivilDate(seconds: seconds)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(date.year)-\(two(date.month))-\(two(date.day))T\(two(date.hour)):\(two(date.minute)):"
            + "\(two(date.second))Z"
    }
}

/// A UTC calendar date and time of day from seconds since 1970 (Howard Hinnant's `civil_from_days`), for reports.
public struct CivilDate: Sendable, Hashable {
    public var year: Int64
    /// 1–12.
    public var month: Int64
    public var day: Int64
    public var hour: Int64
    public var minute: Int64
    public var second: Int64

    public init(seconds: Int64) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let rest = seconds - days * 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        day = doy - (153 * mp + 2) / 5 + 1
        month = mp < 10 ? mp + 3 : mp - 9
        year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        (hour, minute, second) = (rest / 3600, rest % 3600 / 60, rest % 60)
    }
}
