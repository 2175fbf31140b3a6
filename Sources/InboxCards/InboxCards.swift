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
// - createMessage on the device. `data` is `u`, `link` is `l`, `rich_media` is `rm` on both platforms; the iOS
//   payload gets `ios_attachment` as `attachment` and the `ios_root_params` keys at its root, the Android one
//   `android_banner` as `b` and the `android_root_params` keys (root params only reach the push-delivered copy:
//   `input.rootParams`). iOS shows `ios_title` else `title`, Android `android_header` else `title` (which of them
//   fills a feed copy's title is unverified; this is the reading to warn about); an empty platform title still
//   wins (`input.emptyPlatformTitle`). A notification without `inbox_image`/`inbox_date`/`inbox_days` (and a push
//   without `pw_inbox`) is a plain push: it is read, reported as `input.notInbox`, and gets no card.
// - Visibility (android-inbox.md §3). Per platform, at `ResolveOptions.at`: a feed message missing a required key,
//   deleted (status 4; Android also 5), expired (`rt`; a push's `inbox_params.rt`; createMessage `inbox_date`,
//   judged at the end of that UTC day) or, on Android, with a value `org.json` cannot parse gets no card on that
//   platform and an `input.*` finding of the run. Dates are UTC: the device's zone is unknown.
// - Typed lookups. Like the SDK's `as? T` chains, a value of the wrong type at one level (root, `u`,
//   `userdata`) is skipped with `card.wrongType` and the next level is tried; `null` is absent.
// - Platforms. `platforms` codes 1 → iOS, 3 and 17 (Huawei) → Android. A platform the notification does not
//   target gets no card; a message that targets none of the resolved platforms is `input.platformNotTargeted`.
//   Android cards are one per message, language and Android profile (android-inbox.md §2): `legacy` is the legacy
//   row (≤ 6.11 always; 6.12+ without a known displayType unless the heuristic switch is on); on 6.11 a known
//   displayType is a degrade of intent to `legacy`, as a kind 7.0 lacks is a degrade to the heuristic's kind.
// - Feed order (§4). `feedPosition` per platform, profile and language: iOS pinned → unread → newest; Android
//   push-delivered first, then send date, order, title, id. A language-less card is placed in the feed of a device
//   whose language no per-language message has (those show their `en` text).
// - Taps. `tapActions` follow inboxkit-cards.md §5 on 7.2 (a message's `l`/`rm` replaces a video's player, a
//   slide's url and an openURL button: `card.tapOverridden`) and android-inbox.md §2.1, §2.7–2.8 (6.12–6.13: a
//   video card's row runs the row action outside the poster; 6.15.0: the video card owns its row and a button tap
//   marks the message opened; the legacy row's `b` thumbnail opens `AttachmentActivity`). 7.0/7.1 are modelled
//   without the override rules (their tests are not public).
// - Languages. The union of the per-language title/body keys, in input order; a missing language shows the
//   `en` text (`card.languageFallback`), else none (`card.languageMissing`, which can degrade the card).
// - "Parses" for URLs is RFC 3986 as `URL(string:)` did before iOS 17 (ASCII, no spaces, valid escapes).
// - `sdkLog` prints displayType lowercased (the kind that was requested): the WARN line of a degraded card (iOS
//   7.1+, Android 6.12+, `null` for an absent Android code or displayType), or 7.0's INFO line on every card.
// - Findings are bounded (100 a card, 50 a message, 1000 an input; the rest counted in one
//   `*.findingsTruncated`), so hostile input cannot make millions of them.
// - Secrets: `auth` is never kept (no message, batch or card holds it); URLs and messages in every JSON output
//   pass through `Redaction`. `AssetReference.fetchURL` keeps the real URL for the fetch stage only.
