// InboxCards — the first two pipeline stages: read campaign inputs, resolve the card each message becomes.
//
//     let batch = try CampaignReader.read(bytes: bytes, source: "campaign.json")   // throws InputError → exit 2
//     let resolver = CardResolver(options: ResolveOptions(profiles: [.v7_2], platforms: [.ios], forceKind: nil))
//     let cards = resolver.resolve(batch.messages)        // or resolver.run(batch) for cards + input findings
//
// The rules are the shared docs' inboxkit-cards.md. Where it leaves a choice open, this module decided:
//
// - Source ids. `file#request.notifications[3]` for createMessage requests, `file#[3]` for array elements and
//   NDJSON records (records count non-blank lines from 0, like array indices), `file#messages[0]` for feed
//   lists, and the file name alone for a file holding one feed message, push payload or bare notification.
//   Finding paths are full JSON paths inside the file; inside JSON-encoded strings (`action_params`, `u`)
//   they continue as if the string were the object: `action_params.u.carousel[1].image`.
// - NDJSON. A whole-document parse comes first; when it fails with content after a first value, or every
//   non-blank line starts with `{`, lines are parsed one by one and a broken line is an `input.invalidJSON`
//   finding. If no line is readable the whole input is an `InputError`.
// - createMessage on the device. `data` is `u`; `ios_attachment` and `android_banner` are the root
//   `attachment` and `b` (the 7.2 hero sources and the Android banner). A notification without
//   `inbox_image`/`inbox_date`/`inbox_days` (and a push without `pw_inbox`) is a plain push: it is read,
//   reported as `input.notInbox`, and gets no card.
// - Typed lookups. Like the SDK's `as? T` chains, a value of the wrong type at one level (root, `u`,
//   `userdata`) is skipped with `card.wrongType` and the next level is tried; `null` is absent.
// - Platforms. `platforms` codes 1 → iOS, 3 and 17 (Huawei) → Android. A platform the notification does not
//   target gets no card; a message that targets none of the resolved platforms is `input.platformNotTargeted`.
//   Android cards are one per message and language (`sdk` null): requested is the explicit displayType (else
//   classic: the InboxKit heuristic is iOS-only), resolved is always classic, degraded when they differ.
// - Languages. The union of the per-language title/body keys, in input order; a missing language shows the
//   `en` text (`card.languageFallback`), else none (`card.languageMissing`, which can degrade the card).
// - "Parses" for URLs is RFC 3986 as `URL(string:)` did before iOS 17 (ASCII, no spaces, valid escapes).
// - `sdkLog` prints displayType lowercased (the kind that was requested).
// - Findings are bounded (100 a card, 50 a message, 1000 an input; the rest counted in one
//   `*.findingsTruncated`), so hostile input cannot make millions of them.
// - Secrets: `auth` is never kept (no message, batch or card holds it); URLs and messages in every JSON output
//   pass through `Redaction`. `AssetReference.fetchURL` keeps the real URL for the fetch stage only.
