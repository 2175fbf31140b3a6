import ArgumentKit
import Preflight

/// `--shard I/N` (check, prefetch, export): process only the assets whose URL digest falls in shard I of N.
enum ShardOption {
    static let option = Option.value(
        "shard", "i/n",
        help: "Process only the assets in shard I of N (1 <= I <= N), by the SHA-256 of each URL: N workers split a "
            + "run with no coordinator. check still resolves every card and reports other shards' assets as skipped.")

    /// `--shard I/N` for `pass verify|audit`: the passes, by their path or URL as given.
    static let passOption = Option.value(
        "shard", "i/n",
        help: "Verify only the passes in shard I of N, by the SHA-256 of each path or URL as given (or as the "
            + "directory walk found it): N workers split a fleet with no coordinator; fleet findings cover one shard.")

    /// The shard asked for, or ``Shard/all``; a malformed value is a usage error (exit 64).
    static func parse(_ invocation: Invocation) throws(UsageError) -> Shard {
        guard let text = invocation.value("shard") else { return .all }
        guard let shard = Shard(parsing: text) else {
            throw invocation.invalid(text, for: "shard", hint: "Expected I/N with 1 <= I <= N <= 1000000, e.g. 2/4.")
        }
        return shard
    }
}
