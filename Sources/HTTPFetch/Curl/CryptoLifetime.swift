internal import COpenSSL

/// OpenSSL's process-wide state, for executables that exit with threads still running.
public enum CryptoLifetime {
    /// Keeps OpenSSL's global state until the process is gone: no atexit cleanup that a thread still inside
    /// libcrypto (a TLS connection, a SHA-256 of a blob) could trip over. Call first, before any TLS or hashing.
    public static func outliveExit() {
        _ = ia_openssl_init_no_atexit()
    }
}
