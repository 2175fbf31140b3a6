/// The stable finding codes of `pass audit --web-service`, one per outcome of the read-only check of a pass's
/// update web service (Apple's PassKit Web Service Reference, "Send an Updated Pass"). Never rename one.
public enum PassWebServiceFindingCode {
    // MARK: pass.webService.*

    /// The service answered as Wallet needs: 200 with a pass that verifies and is the same pass, then 304 or
    /// 200 to a conditional repeat, and 401 to a wrong token. Info.
    public static let ok = "pass.webService.ok"
    /// `GET {webServiceURL}/v1/passes/{passTypeIdentifier}/{serialNumber}` with the pass's token did not get an
    /// answer (DNS, connect, TLS, timeout; the engine's reason is quoted). Error: Wallet cannot update the pass.
    public static let unreachable = "pass.webService.unreachable"
    /// That GET answered another status than 200 (401: the service does not know the pass's token; 404: nor
    /// the pass; 5xx: it fails). Error: Wallet cannot update the pass.
    public static let status = "pass.webService.status"
    /// The pass the service returned does not verify (its error codes are listed). Error: Wallet rejects the update.
    public static let invalidPass = "pass.webService.invalidPass"
    /// The returned pass has another `passTypeIdentifier` or `webServiceURL`. Error: it is not this pass.
    public static let wrongPass = "pass.webService.wrongPass"
    /// The returned pass has another `serialNumber`. Error: it is not this pass.
    public static let wrongSerial = "pass.webService.wrongSerial"
    /// The 200 carried no `Last-Modified`, so Wallet's next request cannot be conditional. Warning.
    public static let noLastModified = "pass.webService.noLastModified"
    /// A repeat with `If-Modified-Since` of the returned `Last-Modified` answered neither 304 nor 200. Warning.
    public static let conditional = "pass.webService.conditional"
    /// The same GET with a wrong token answered 200: anyone who knows the serial number can download the pass.
    /// Error (security).
    public static let noAuthCheck = "pass.webService.noAuthCheck"
    /// The same GET with a wrong token answered neither 401 (what Apple specifies) nor 200. Warning.
    public static let wrongTokenStatus = "pass.webService.wrongTokenStatus"

    /// Every code above, for reports and tests.
    public static let all: [String] = [
        ok, unreachable, status, invalidPass, wrongPass, wrongSerial, noLastModified, conditional, noAuthCheck,
        wrongTokenStatus,
    ]
}
