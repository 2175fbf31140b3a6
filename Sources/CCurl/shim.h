// CCurl — the libcurl C API as Swift sees it, plus typed wrappers.
//
// Why the wrappers exist: curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are C variadic
// functions, which Swift cannot call. Each wrapper below fixes the third argument to one C type, so
// Swift calls a normal function. curl decides how to read that argument from the option number, so a
// wrapper used with an option of another type is undefined behaviour that no compiler catches (Swift's
// clang importer also disables curl's own typecheck-gcc.h macros). The test
// CBindingsTests/CurlOptionTypeTests checks every option the engine passes to each wrapper against
// curl_easy_option_by_id(option)->type, so a mismatch fails a test rather than corrupting memory.
//
// When they can go: if libcurl ever grows non-variadic, per-type setters (there is a long-standing
// discussion upstream), or Swift learns to call C variadics with a va_list-free ABI.
#ifndef INBOX_ASSETS_CCURL_SHIM_H
#define INBOX_ASSETS_CCURL_SHIM_H

#include <curl/curl.h>

// MARK: curl_easy_setopt, one wrapper per argument type (CURLOT_LONG, _OFF_T, _STRING, _OBJECT, _SLIST, _FUNCTION)

static inline CURLcode ia_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ia_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ia_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ia_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ia_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
// Callbacks: one wrapper per callback signature, so a Swift closure of the wrong shape does not compile.
static inline CURLcode ia_easy_setopt_write_callback(CURL *handle, CURLoption option, curl_write_callback value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ia_easy_setopt_xferinfo_callback(CURL *handle, CURLoption option,
                                                        curl_xferinfo_callback value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ia_easy_setopt_prereq_callback(CURL *handle, CURLoption option,
                                                      curl_prereq_callback value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ia_easy_setopt_read_callback(CURL *handle, CURLoption option, curl_read_callback value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ia_easy_setopt_debug_callback(CURL *handle, CURLoption option, curl_debug_callback value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ia_easy_setopt_opensocket_callback(CURL *handle, CURLoption option,
                                                          curl_opensocket_callback value) {
    return curl_easy_setopt(handle, option, value);
}

// MARK: curl_easy_getinfo, one wrapper per result type (CURLINFO_LONG, _OFF_T, _STRING, _DOUBLE, _SLIST)

static inline CURLcode ia_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode ia_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode ia_easy_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode ia_easy_getinfo_double(CURL *handle, CURLINFO info, double *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode ia_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}

// MARK: curl_multi_setopt (CURLMOPT_* take long or pointer/callback arguments)

static inline CURLMcode ia_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}
static inline CURLMcode ia_multi_setopt_pointer(CURLM *multi, CURLMoption option, void *value) {
    return curl_multi_setopt(multi, option, value);
}

// MARK: constants Swift cannot import
// CURL_WRITEFUNC_PAUSE / CURL_READFUNC_ABORT are casts in macros; CURL_PREREQFUNC_* are plain ints
// but kept here so all "return this from a callback" values come from one place.
static inline size_t ia_writefunc_error(void) { return (size_t)-1; }  // any value != size*nmemb aborts
static inline size_t ia_writefunc_pause(void) { return CURL_WRITEFUNC_PAUSE; }
static inline size_t ia_readfunc_abort(void) { return CURL_READFUNC_ABORT; }
static inline int ia_prereqfunc_ok(void) { return CURL_PREREQFUNC_OK; }
static inline int ia_prereqfunc_abort(void) { return CURL_PREREQFUNC_ABORT; }
// CURL_SOCKET_BAD: what an open-socket callback returns to refuse an address (deny-private, before connecting).
static inline curl_socket_t ia_socket_bad(void) { return CURL_SOCKET_BAD; }

#endif
