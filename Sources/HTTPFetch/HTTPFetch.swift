internal import CCurl
internal import COpenSSL

// HTTPFetch — work in progress (see issues).
func _v() { _ = curl_version_info(CURLVERSION_TENTH) }
func _sanity() { _ = ia_sk_x509_new_null(); _ = ia_easy_setopt_long(nil, CURLOPT_VERBOSE, 0) }
