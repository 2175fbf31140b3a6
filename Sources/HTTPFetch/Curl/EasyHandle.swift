internal import CCurl

/// Owns one `CURL *` easy handle and its error buffer. Lives on the engine thread only (not Sendable on
/// purpose: libcurl forbids using one handle from two threads at once).
final class EasyHandle {
    let pointer: UnsafeMutableRawPointer
    /// `CURLOPT_ERRORBUFFER` storage: curl writes its detailed message here, so it must live as long as the handle.
    private let errorBuffer: UnsafeMutablePointer<CChar>

    init?() {
        guard let pointer = curl_easy_init() else { return nil }
        self.pointer = pointer
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        set(.errorBuffer, UnsafeMutableRawPointer(errorBuffer))
    }

    deinit {
        curl_easy_cleanup(pointer)
        errorBuffer.deallocate()
    }

    /// Forgets every option of the previous transfer (connections stay in the multi handle's cache) and
    /// re-attaches the error buffer.
    func reset() {
        curl_easy_reset(pointer)
        errorBuffer[0] = 0
        set(.errorBuffer, UnsafeMutableRawPointer(errorBuffer))
    }

    /// Clears the error buffer before a new perform (curl only writes it on failure).
    func clearError() { errorBuffer[0] = 0 }

    /// curl's own detailed message for the last failure, or `nil` when it wrote none.
    var errorText: String? {
        errorBuffer[0] == 0 ? nil : String(validatingCString: errorBuffer)
    }

    // MARK: setopt (one overload per wrapper type; the enums make every option used enumerable)

    @discardableResult
    func set(_ option: CurlLongOption, _ value: Int) -> CURLcode { ia_easy_setopt_long(pointer, option.id, value) }

    @discardableResult
    func set(_ option: CurlOffTOption, _ value: Int64) -> CURLcode {
        ia_easy_setopt_off_t(pointer, option.id, curl_off_t(value))
    }

    @discardableResult
    func set(_ option: CurlStringOption, _ value: String) -> CURLcode {
        ia_easy_setopt_string(pointer, option.id, value)
    }

    /// `nil` sets the option back to `NULL` (curl's default: e.g. no `Range`).
    @discardableResult
    func set(_ option: CurlStringOption, _ value: String?) -> CURLcode {
        guard let value else { return ia_easy_setopt_string(pointer, option.id, nil) }
        return ia_easy_setopt_string(pointer, option.id, value)
    }

    @discardableResult
    func set(_ option: CurlSlistOption, _ value: CurlStringList?) -> CURLcode {
        ia_easy_setopt_slist(pointer, option.id, value?.head)
    }

    @discardableResult
    func set(_ option: CurlPointerOption, _ value: UnsafeMutableRawPointer?) -> CURLcode {
        ia_easy_setopt_pointer(pointer, option.id, value)
    }

    @discardableResult
    func setWriteFunction(_ callback: curl_write_callback) -> CURLcode {
        ia_easy_setopt_write_callback(pointer, CurlFunctionOption.write.id, callback)
    }

    @discardableResult
    func setReadFunction(_ callback: curl_read_callback) -> CURLcode {
        ia_easy_setopt_read_callback(pointer, CurlFunctionOption.read.id, callback)
    }

    /// Runs one transfer to its end on the calling thread (the remote cache's workers; the engine uses its multi).
    func perform() -> CURLcode { curl_easy_perform(pointer) }

    @discardableResult
    func setXferInfoFunction(_ callback: curl_xferinfo_callback) -> CURLcode {
        ia_easy_setopt_xferinfo_callback(pointer, CurlFunctionOption.xferInfo.id, callback)
    }

    @discardableResult
    func setPrereqFunction(_ callback: curl_prereq_callback) -> CURLcode {
        ia_easy_setopt_prereq_callback(pointer, CurlFunctionOption.prereq.id, callback)
    }

    @discardableResult
    func setOpenSocketFunction(_ callback: curl_opensocket_callback) -> CURLcode {
        ia_easy_setopt_opensocket_callback(pointer, CurlFunctionOption.openSocket.id, callback)
    }

    // MARK: getinfo

    func info(_ info: CurlLongInfo) -> Int? {
        var value = 0
        return ia_easy_getinfo_long(pointer, info.id, &value) == CURLE_OK ? value : nil
    }

    func info(_ info: CurlOffTInfo) -> Int64? {
        var value: curl_off_t = 0
        return ia_easy_getinfo_off_t(pointer, info.id, &value) == CURLE_OK ? Int64(value) : nil
    }

    func info(_ info: CurlStringInfo) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard ia_easy_getinfo_string(pointer, info.id, &value) == CURLE_OK, let value else { return nil }
        return String(validatingCString: value)
    }

    func info(_ info: CurlPointerInfo) -> UnsafeMutableRawPointer? {
        var value: UnsafeMutableRawPointer?
        return ia_easy_getinfo_pointer(pointer, info.id, &value) == CURLE_OK ? value : nil
    }

    /// The last value of response header `name` in the most recent response (curl's header API, 7.83+).
    func header(_ name: String) -> String? {
        var header: UnsafeMutablePointer<curl_header>?
        guard curl_easy_header(pointer, name, 0, UInt32(CURLH_HEADER), -1, &header) == CURLHE_OK,
            let value = header?.pointee.value
        else { return nil }
        return String(validatingCString: value)
    }
}

/// Owns a `curl_slist` (curl keeps a pointer to it, so it must outlive every transfer that uses it).
final class CurlStringList {
    private(set) var head: UnsafeMutablePointer<curl_slist>?

    init?(_ strings: [String]) {
        for string in strings {
            guard let appended = curl_slist_append(head, string) else {
                curl_slist_free_all(head)
                return nil
            }
            head = appended
        }
    }

    deinit { curl_slist_free_all(head) }
}

/// Owns a `CURLM *` multi handle.
final class MultiHandle {
    private(set) var pointer: UnsafeMutableRawPointer

    init?() {
        guard let pointer = curl_multi_init() else { return nil }
        self.pointer = pointer
    }

    private var cleanedUp = false

    /// Closes every cached connection and frees the handle now (the engine thread does this on shutdown, so
    /// sockets do not wait for the last reference to the engine). Easy handles must be removed first.
    func cleanup() {
        guard !cleanedUp else { return }
        cleanedUp = true
        curl_multi_cleanup(pointer)
    }

    deinit { cleanup() }

    /// Removes every easy handle curl reports finished and hands it to `body` with its result.
    func removeFinished(_ body: (_ handle: UnsafeMutableRawPointer, _ result: CURLcode) -> Void) {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(pointer, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle else { continue }
            let code = message.pointee.data.result
            curl_multi_remove_handle(pointer, handle)
            body(handle, code)
        }
    }

    @discardableResult
    func set(_ option: CurlMultiLongOption, _ value: Int) -> CURLMcode {
        ia_multi_setopt_long(pointer, option.id, value)
    }
}
