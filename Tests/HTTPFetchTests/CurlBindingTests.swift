import CCurl
import Testing

@testable import HTTPFetch

/// Swift's clang importer turns off curl's typecheck-gcc.h, so nothing checks at compile time that an option
/// passed to `ia_easy_setopt_long` really takes a long. These tests check every option and info the engine
/// uses (the enums are CaseIterable, so a new one is covered the moment it is added).
@Suite("Every curl option and info matches its typed wrapper")
struct CurlBindingTests {
    private static func type(of option: CURLoption) -> curl_easytype? {
        curl_easy_option_by_id(option)?.pointee.type
    }

    @Test(arguments: CurlLongOption.allCases)
    func longOptions(_ option: CurlLongOption) {
        let type = Self.type(of: option.id)
        #expect(type == CURLOT_LONG || type == CURLOT_VALUES, "\(option) is \(String(describing: type))")
    }

    @Test(arguments: CurlOffTOption.allCases)
    func offTOptions(_ option: CurlOffTOption) { #expect(Self.type(of: option.id) == CURLOT_OFF_T) }

    @Test(arguments: CurlStringOption.allCases)
    func stringOptions(_ option: CurlStringOption) { #expect(Self.type(of: option.id) == CURLOT_STRING) }

    @Test(arguments: CurlSlistOption.allCases)
    func slistOptions(_ option: CurlSlistOption) { #expect(Self.type(of: option.id) == CURLOT_SLIST) }

    @Test(arguments: CurlPointerOption.allCases)
    func pointerOptions(_ option: CurlPointerOption) {
        let type = Self.type(of: option.id)
        #expect(type == CURLOT_OBJECT || type == CURLOT_CBPTR, "\(option) is \(String(describing: type))")
    }

    @Test(arguments: CurlFunctionOption.allCases)
    func functionOptions(_ option: CurlFunctionOption) { #expect(Self.type(of: option.id) == CURLOT_FUNCTION) }

    private static func typeBits(_ info: CURLINFO) -> UInt32 { info.rawValue & UInt32(CURLINFO_TYPEMASK) }

    @Test(arguments: CurlLongInfo.allCases)
    func longInfos(_ info: CurlLongInfo) { #expect(Self.typeBits(info.id) == UInt32(CURLINFO_LONG)) }

    @Test(arguments: CurlOffTInfo.allCases)
    func offTInfos(_ info: CurlOffTInfo) { #expect(Self.typeBits(info.id) == UInt32(CURLINFO_OFF_T)) }

    @Test(arguments: CurlStringInfo.allCases)
    func stringInfos(_ info: CurlStringInfo) { #expect(Self.typeBits(info.id) == UInt32(CURLINFO_STRING)) }

    @Test(arguments: CurlPointerInfo.allCases)
    func pointerInfos(_ info: CurlPointerInfo) { #expect(Self.typeBits(info.id) == UInt32(CURLINFO_PTR)) }
}

@Suite("deny-private address rule")
struct AddressPolicyTests {
    @Test(
        "Not public",
        arguments: [
            "127.0.0.1", "127.255.0.9", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254",
            "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255", "192.0.2.7", "198.18.0.1", "::1", "::",
            "fc00::1", "fd12:3456::1", "fe80::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "64:ff9b::a00:1",
            "not an address", "",
        ])
    func privateAddresses(_ address: String) { #expect(AddressPolicy.isPrivate(address)) }

    @Test(
        "Public",
        arguments: [
            "8.8.8.8", "1.1.1.1", "172.15.255.255", "172.32.0.1", "192.169.0.1", "100.128.0.1", "2606:4700::1111",
            "2a00:1450:4001::200e", "::ffff:8.8.8.8",
        ])
    func publicAddresses(_ address: String) { #expect(!AddressPolicy.isPrivate(address)) }
}

@Suite("deny-private callbacks")
struct DenyPrivateCallbackTests {
    private func flight(denyPrivate: Bool) -> Flight {
        Flight(
            key: FlightKey("k"), url: "http://example.test/", kind: .probe, validators: Validators(),
            host: HostSlot(key: "h"),
            options: FetchOptions(denyPrivate: denyPrivate))
    }

    @Test("The pre-request check (every request, reused connections too) refuses a private peer")
    func prereqRefuses() {
        let guarded = flight(denyPrivate: true)
        #expect(guarded.connected(to: "10.0.0.7") == ia_prereqfunc_abort())
        #expect(guarded.flags.privateAddress)
        #expect(guarded.remoteAddress == "10.0.0.7")
        #expect(guarded.connected(to: "93.184.216.34") == ia_prereqfunc_ok())
    }

    @Test("Without deny-private every address is allowed")
    func prereqAllows() {
        let open = flight(denyPrivate: false)
        #expect(open.connected(to: "127.0.0.1") == ia_prereqfunc_ok())
        #expect(!open.flags.privateAddress)
    }

    @Test("A refusal only classifies as private-address when it ended the transfer")
    func classification() {
        var flags = TransferFlags()
        flags.privateAddress = true
        #expect(CurlErrorClassifier.failure(for: CURLE_COULDNT_CONNECT, flags: flags) == .privateAddress)
        #expect(CurlErrorClassifier.failure(for: CURLE_RECV_ERROR, flags: flags) == .reset)
    }

    @Test(
        "curl codes map to failure classes",
        arguments: [
            (CURLE_COULDNT_RESOLVE_HOST, FetchFailure.dns), (CURLE_COULDNT_CONNECT, .connect),
            (CURLE_OPERATION_TIMEDOUT, .timeout), (CURLE_PEER_FAILED_VERIFICATION, .tls),
            (CURLE_SSL_CONNECT_ERROR, .tls), (CURLE_UNSUPPORTED_PROTOCOL, .scheme), (CURLE_URL_MALFORMAT, .invalidURL),
            (CURLE_FILESIZE_EXCEEDED, .tooLarge), (CURLE_PARTIAL_FILE, .truncated), (CURLE_RECV_ERROR, .reset),
            (CURLE_GOT_NOTHING, .reset), (CURLE_SEND_ERROR, .reset), (CURLE_TOO_MANY_REDIRECTS, .tooManyRedirects),
        ])
    func codes(_ code: CURLcode, _ failure: FetchFailure) {
        #expect(CurlErrorClassifier.failure(for: code, flags: TransferFlags()) == failure)
    }
}

@Suite("Finding codes")
struct FindingCodeTests {
    @Test("Every failure has a distinct camelCase asset.* code", arguments: FetchFailure.allCases)
    func code(_ failure: FetchFailure) {
        let code = failure.findingCode
        #expect(code.hasPrefix("asset."))
        #expect(!code.contains("-"))
        #expect(FetchFailure.allCases.filter { $0.findingCode == code } == [failure])
    }
}
