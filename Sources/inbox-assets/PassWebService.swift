import Findings
import Foundation
import HTTPFetch
import WalletPass

/// `pass audit --web-service`: asks each pass's update web service what Wallet asks it, read-only — never a
/// POST or DELETE (registering a device creates rows on a production server). Every request goes through the
/// engine (timeouts, retries, `--deny-private`); the token goes into the `Authorization` header only.
///
/// 1. `GET {webServiceURL}/v1/passes/{passTypeIdentifier}/{serialNumber}` with `Authorization: ApplePass {token}`
///    must answer 200 with a pass that verifies and has the same passTypeIdentifier, serialNumber and
///    webServiceURL (Apple, PassKit Web Service Reference, "Send an Updated Pass").
/// 2. The same with `If-Modified-Since` of its `Last-Modified` must answer 304 or 200.
/// 3. The same with a wrong token must answer 401; 200 means anyone who knows the serial can download the pass.
struct PassWebServiceCheck: Sendable {
    let engine: FetchEngine
    let verifier: PassVerifier

    /// The findings for one pass (`pass.webService.*`); none when the pass has no web service or it is not https
    /// (`pass.json.webServiceUrl` already says so, and Wallet never calls it).
    func check(_ credentials: PassWebServiceCredentials) async -> [Finding] {
        guard credentials.webServiceURL.lowercased().hasPrefix("https://") else { return [] }
        var base = credentials.webServiceURL
        while base.hasSuffix("/") { base.removeLast() }
        var segment = CharacterSet.urlPathAllowed
        segment.remove("/")
        func encoded(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: segment) ?? text }
        let url =
            base + "/v1/passes/" + encoded(credentials.passTypeIdentifier) + "/" + encoded(credentials.serialNumber)
        let shown = Redaction.redactURL(url)
        let authorization = "ApplePass " + credentials.authenticationToken

        let sink = MemorySink(capacity: verifier.limits.maxArchiveBytes)
        let latest = await engine.get(url, into: sink, validators: Validators(authorization: authorization))
        guard latest.isOK, !latest.notModified else {
            if let status = latest.httpStatus {
                return [
                    .error(
                        PassWebServiceFindingCode.status,
                        "GET \(shown) with the pass's token answered \(status), not 200 with the pass: Wallet cannot "
                            + "update it")
                ]
            }
            let reason = latest.errorText ?? latest.failure?.rawValue ?? "no answer"
            return [
                .error(
                    PassWebServiceFindingCode.unreachable,
                    "GET \(shown) failed (\(latest.failure?.rawValue ?? "error")): \(reason); Wallet cannot update the pass"
                )
            ]
        }
        var findings = compare(verifier.verify(bytes: sink.bytes, source: shown), credentials, shown)
        if let lastModified = latest.lastModified {
            let again = await engine.get(
                url, validators: Validators(lastModified: lastModified, authorization: authorization))
            if !again.isOK {
                findings.append(
                    .warning(
                        PassWebServiceFindingCode.conditional,
                        "GET \(shown) with If-Modified-Since: \(lastModified) answered \(answer(again)), not 304 or 200"
                    ))
            }
        } else {
            findings.append(
                .warning(
                    PassWebServiceFindingCode.noLastModified,
                    "GET \(shown) answered 200 without Last-Modified: Wallet's next request cannot be conditional"))
        }
        let stranger = "ApplePass " + (0..<4).map { _ in String(UInt64.random(in: 0...UInt64.max), radix: 16) }.joined()
        let wrong = await engine.get(url, validators: Validators(authorization: stranger))
        if wrong.isOK {
            findings.append(
                .error(
                    PassWebServiceFindingCode.noAuthCheck,
                    "GET \(shown) with a wrong token answered 200: anyone who knows the serial number can download "
                        + "the pass"))
        } else if wrong.httpStatus != 401 {
            findings.append(
                .warning(
                    PassWebServiceFindingCode.wrongTokenStatus,
                    "GET \(shown) with a wrong token answered \(answer(wrong)), not 401"))
        }
        if findings.isEmpty {
            findings.append(
                .info(
                    PassWebServiceFindingCode.ok,
                    "GET \(shown) answered 200 with this pass, then 304 or 200 to If-Modified-Since, and 401 to a wrong "
                        + "token: Wallet can update the pass and a stranger cannot download it"))
        }
        return findings
    }

    /// Whether the returned pass verifies and is the same pass.
    private func compare(_ returned: PassVerification, _ credentials: PassWebServiceCredentials, _ shown: String)
        -> [Finding]
    {
        var findings: [Finding] = []
        if !returned.valid {
            let codes = returned.findings.filter { $0.severity == .error }.map(\.code)
            findings.append(
                .error(
                    PassWebServiceFindingCode.invalidPass,
                    "the pass GET \(shown) returned does not verify (\(codes.joined(separator: ", "))): Wallet "
                        + "rejects the update"))
        }
        let type = returned.summary?.passTypeIdentifier
        let service = returned.facts?.webServiceURL
        if type != credentials.passTypeIdentifier || service != credentials.webServiceURL {
            findings.append(
                .error(
                    PassWebServiceFindingCode.wrongPass,
                    "GET \(shown) returned a pass of type \(type ?? "none") with webServiceURL "
                        + "\(service.map(Redaction.redactURL) ?? "none"): not this pass"))
        } else if returned.summary?.serialNumber != credentials.serialNumber {
            findings.append(
                .error(
                    PassWebServiceFindingCode.wrongSerial,
                    "GET \(shown) returned serial \(returned.summary?.serialNumber ?? "none"), not "
                        + credentials.serialNumber))
        }
        return findings
    }

    private func answer(_ outcome: FetchOutcome) -> String {
        if outcome.notModified { return "304" }
        if let status = outcome.httpStatus { return String(status) }
        return outcome.failure?.rawValue ?? "nothing"
    }
}
