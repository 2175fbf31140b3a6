import Foundation

/// Process-wide settings made once, before any thread starts.
enum ProcessSetup {
    /// Names glibc's default time zone explicitly when `TZ` is unset.
    ///
    /// Why: libzip converts every archive entry's DOS date with `mktime(3)` and OpenSSL's certificate time checks
    /// call `gmtime_r(3)`. With `TZ` unset, glibc re-reads `/etc/localtime` (a `stat` under its one global time-zone
    /// lock) on every such call, so the verifier threads of `pass verify --jobs` queued on that lock: 11,200 `futex`
    /// calls for 1,000 passes, and 2 cores verified 10,000 passes only 1.61× as fast as one (bench/RESULTS.md, item
    /// d). `:/etc/localtime` is the file glibc falls back to anyway, so local time means what it meant before;
    /// glibc now sees an unchanged `TZ` and reads the file once. Nothing in the reports uses local time.
    static func pinTimeZone() {
        guard getenv("TZ") == nil else { return }
        setenv("TZ", ":/etc/localtime", 0)
    }
}
