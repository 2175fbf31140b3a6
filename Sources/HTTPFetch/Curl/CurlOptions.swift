internal import CCurl

// Every curl option and info the engine uses, grouped by the C type its typed wrapper passes. Keeping them in
// CaseIterable enums makes the set enumerable, so CurlOptionTypeTests can check each one against
// curl_easy_option_by_id(option)->type (options) or the CURLINFO type bits (infos): a long passed where curl
// reads a pointer is undefined behaviour no compiler catches.

/// Options set with `ia_easy_setopt_long` (curl types `CURLOT_LONG` and `CURLOT_VALUES`).
enum CurlLongOption: CaseIterable {
    case noSignal, noProgress, noBody, httpGet, followLocation, connectTimeoutMilliseconds, lowSpeedLimit
    case lowSpeedTime, httpVersion, verifyPeer, verifyHost, tcpKeepAlive, pipeWait, upload

    var id: CURLoption {
        switch self {
        case .noSignal: CURLOPT_NOSIGNAL
        case .noProgress: CURLOPT_NOPROGRESS
        case .noBody: CURLOPT_NOBODY
        case .httpGet: CURLOPT_HTTPGET
        case .followLocation: CURLOPT_FOLLOWLOCATION
        case .connectTimeoutMilliseconds: CURLOPT_CONNECTTIMEOUT_MS
        case .lowSpeedLimit: CURLOPT_LOW_SPEED_LIMIT
        case .lowSpeedTime: CURLOPT_LOW_SPEED_TIME
        case .httpVersion: CURLOPT_HTTP_VERSION
        case .verifyPeer: CURLOPT_SSL_VERIFYPEER
        case .verifyHost: CURLOPT_SSL_VERIFYHOST
        case .tcpKeepAlive: CURLOPT_TCP_KEEPALIVE
        case .pipeWait: CURLOPT_PIPEWAIT
        case .upload: CURLOPT_UPLOAD
        }
    }
}

/// Options set with `ia_easy_setopt_off_t` (`CURLOT_OFF_T`).
enum CurlOffTOption: CaseIterable {
    case maxFileSize, inFileSize

    var id: CURLoption {
        switch self {
        case .maxFileSize: CURLOPT_MAXFILESIZE_LARGE
        case .inFileSize: CURLOPT_INFILESIZE_LARGE
        }
    }
}

/// Options set with `ia_easy_setopt_string` (`CURLOT_STRING`; curl copies the string).
enum CurlStringOption: CaseIterable {
    case url, userAgent, caFile, protocols, redirectProtocols, range

    var id: CURLoption {
        switch self {
        case .url: CURLOPT_URL
        case .userAgent: CURLOPT_USERAGENT
        case .caFile: CURLOPT_CAINFO
        case .protocols: CURLOPT_PROTOCOLS_STR
        case .redirectProtocols: CURLOPT_REDIR_PROTOCOLS_STR
        case .range: CURLOPT_RANGE
        }
    }
}

/// Options set with `ia_easy_setopt_slist` (`CURLOT_SLIST`; curl does NOT copy the list: it must outlive use).
enum CurlSlistOption: CaseIterable {
    case connectTo, httpHeaders

    var id: CURLoption {
        switch self {
        case .connectTo: CURLOPT_CONNECT_TO
        case .httpHeaders: CURLOPT_HTTPHEADER
        }
    }
}

/// Options set with `ia_easy_setopt_pointer` (`CURLOT_OBJECT` or `CURLOT_CBPTR`).
enum CurlPointerOption: CaseIterable {
    case errorBuffer, writeData, xferInfoData, prereqData, openSocketData, readData

    var id: CURLoption {
        switch self {
        case .errorBuffer: CURLOPT_ERRORBUFFER
        case .writeData: CURLOPT_WRITEDATA
        case .xferInfoData: CURLOPT_XFERINFODATA
        case .prereqData: CURLOPT_PREREQDATA
        case .openSocketData: CURLOPT_OPENSOCKETDATA
        case .readData: CURLOPT_READDATA
        }
    }
}

/// Callback options (`CURLOT_FUNCTION`), each set through the wrapper of its own C signature.
enum CurlFunctionOption: CaseIterable {
    case write, xferInfo, prereq, openSocket, read

    var id: CURLoption {
        switch self {
        case .write: CURLOPT_WRITEFUNCTION
        case .read: CURLOPT_READFUNCTION
        case .xferInfo: CURLOPT_XFERINFOFUNCTION
        case .prereq: CURLOPT_PREREQFUNCTION
        case .openSocket: CURLOPT_OPENSOCKETFUNCTION
        }
    }
}

/// Infos read with `ia_easy_getinfo_long` (type bits `CURLINFO_LONG`).
enum CurlLongInfo: CaseIterable {
    case responseCode, httpVersion

    var id: CURLINFO {
        switch self {
        case .responseCode: CURLINFO_RESPONSE_CODE
        case .httpVersion: CURLINFO_HTTP_VERSION
        }
    }
}

/// Infos read with `ia_easy_getinfo_off_t` (type bits `CURLINFO_OFF_T`).
enum CurlOffTInfo: CaseIterable {
    case contentLength, nameLookupTime, connectTime, tlsTime, firstByteTime, totalTime, retryAfter

    var id: CURLINFO {
        switch self {
        case .contentLength: CURLINFO_CONTENT_LENGTH_DOWNLOAD_T
        case .nameLookupTime: CURLINFO_NAMELOOKUP_TIME_T
        case .connectTime: CURLINFO_CONNECT_TIME_T
        case .tlsTime: CURLINFO_APPCONNECT_TIME_T
        case .firstByteTime: CURLINFO_STARTTRANSFER_TIME_T
        case .totalTime: CURLINFO_TOTAL_TIME_T
        case .retryAfter: CURLINFO_RETRY_AFTER
        }
    }
}

/// Infos read with `ia_easy_getinfo_string` (type bits `CURLINFO_STRING`; the memory stays curl's).
enum CurlStringInfo: CaseIterable {
    case effectiveURL, contentType, redirectURL, primaryIP

    var id: CURLINFO {
        switch self {
        case .effectiveURL: CURLINFO_EFFECTIVE_URL
        case .contentType: CURLINFO_CONTENT_TYPE
        case .redirectURL: CURLINFO_REDIRECT_URL
        case .primaryIP: CURLINFO_PRIMARY_IP
        }
    }
}

/// Infos read with `ia_easy_getinfo_pointer` (type bits `CURLINFO_PTR`, which equals `CURLINFO_SLIST`).
enum CurlPointerInfo: CaseIterable {
    case tlsSession

    var id: CURLINFO {
        switch self {
        case .tlsSession: CURLINFO_TLS_SSL_PTR
        }
    }
}

/// Multi options set with `ia_multi_setopt_long`. curl has no introspection for multi options (no
/// `curl_multi_option_by_id`), so these are checked by reading multi.h: all three are documented as `long`.
enum CurlMultiLongOption: CaseIterable {
    case maxTotalConnections, maxHostConnections, maxConnects

    var id: CURLMoption {
        switch self {
        case .maxTotalConnections: CURLMOPT_MAX_TOTAL_CONNECTIONS
        case .maxHostConnections: CURLMOPT_MAX_HOST_CONNECTIONS
        case .maxConnects: CURLMOPT_MAXCONNECTS
        }
    }
}
