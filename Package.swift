// swift-tools-version:6.0
// inbox-assets — Pushwoosh InboxKit campaign pre-flight: card resolution, asset fetching, pass verification.
// Modules are the pipeline's stages (see README "Architecture"). No outside Swift packages: only the toolchain
// and the system C libraries libcurl, libzip, zlib and OpenSSL.
import PackageDescription

let package = Package(
    name: "inbox-assets",
    products: [
        .executable(name: "inbox-assets", targets: ["inbox-assets"]),
        .executable(name: "fixture-server", targets: ["fixture-server"]),
        .library(name: "InboxCards", targets: ["InboxCards"]),
        .library(name: "HTTPFetch", targets: ["HTTPFetch"]),
        .library(name: "WalletPass", targets: ["WalletPass"]),
        .library(name: "MediaProbe", targets: ["MediaProbe"]),
        .library(name: "MediaRules", targets: ["MediaRules"]),
        .library(name: "AppProject", targets: ["AppProject"]),
        .library(name: "Preflight", targets: ["Preflight"]),
    ],
    targets: [
        // MARK: C libraries (system-library targets; shims explain every wrapper)
        .systemLibrary(
            name: "CCurl", path: "Sources/CCurl", pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(
            name: "CZip", path: "Sources/CZip", pkgConfig: "libzip",
            providers: [.apt(["libzip-dev"])]),
        .systemLibrary(
            name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]),
        // zlib's inflate: MediaProbe's bounded check of PNG image data.
        .systemLibrary(
            name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]),

        // MARK: Pipeline stages
        .target(name: "Findings", dependencies: ["StrictJSON"]),
        .target(name: "StrictJSON"),
        .target(name: "InboxCards", dependencies: ["Findings", "StrictJSON"]),
        .target(name: "HTTPFetch", dependencies: ["Findings", "CCurl", "COpenSSL", "StrictJSON"]),
        .target(
            name: "WalletPass", dependencies: ["Findings", "CZip", "COpenSSL", "StrictJSON"],
            resources: [.copy("Resources/certs")]),
        .target(name: "MediaProbe", dependencies: ["CZlib", "Findings", "StrictJSON"]),
        // Facts → findings per platform: a rule table per platform (iOS, Android), each row with its source.
        .target(name: "MediaRules", dependencies: ["Findings", "MediaProbe"]),
        // The app's own settings for those rules, read from its repository: Info.plist ATS keys, the Xcode
        // deployment target, the Android manifest, network security config and Gradle SDK levels.
        .target(name: "AppProject", dependencies: ["MediaRules"]),
        .target(name: "AssetStore", dependencies: ["Findings", "COpenSSL", "StrictJSON"]),
        .target(name: "FixtureServer", dependencies: ["COpenSSL"]),
        .target(
            name: "Preflight",
            dependencies: [
                "Findings", "InboxCards", "AssetStore", "HTTPFetch", "MediaProbe", "MediaRules", "StrictJSON",
                "WalletPass",
            ]),
        .target(name: "ArgumentKit"),

        // MARK: Executables (thin)
        .executableTarget(
            name: "inbox-assets",
            dependencies: [
                "AppProject", "ArgumentKit", "AssetStore", "Findings", "HTTPFetch", "InboxCards", "MediaRules",
                "Preflight", "StrictJSON", "WalletPass",
            ]),
        .executableTarget(name: "fixture-server", dependencies: ["FixtureServer"]),

        // MARK: Tests (one target per module; end-to-end CLI tests in CLITests)
        .target(name: "TestSupport", dependencies: ["StrictJSON"], path: "Tests/TestSupport"),
        .testTarget(name: "FindingsTests", dependencies: ["TestSupport", "Findings", "StrictJSON"]),
        .testTarget(name: "StrictJSONTests", dependencies: ["StrictJSON"]),
        .testTarget(name: "InboxCardsTests", dependencies: ["TestSupport", "InboxCards", "StrictJSON"]),
        .testTarget(
            name: "HTTPFetchTests", dependencies: ["TestSupport", "HTTPFetch", "FixtureServer", "CCurl", "StrictJSON"]),
        .testTarget(name: "FixtureServerTests", dependencies: ["TestSupport", "FixtureServer"]),
        .testTarget(
            name: "WalletPassTests",
            dependencies: ["TestSupport", "WalletPass", "Findings", "StrictJSON", "COpenSSL", "CZip", "FixtureServer"]),
        .testTarget(
            name: "MediaProbeTests",
            dependencies: ["TestSupport", "MediaProbe", "MediaRules", "Findings", "StrictJSON"]),
        .testTarget(name: "MediaRulesTests", dependencies: ["MediaRules", "MediaProbe", "Findings"]),
        .testTarget(name: "AppProjectTests", dependencies: ["AppProject", "MediaRules"]),
        .testTarget(name: "AssetStoreTests", dependencies: ["TestSupport", "AssetStore", "Findings", "StrictJSON"]),
        .testTarget(
            name: "PreflightTests",
            dependencies: [
                "TestSupport", "Preflight", "InboxCards", "Findings", "AssetStore", "HTTPFetch", "MediaProbe",
                "MediaRules", "FixtureServer", "StrictJSON", "WalletPass",
            ]),
        .testTarget(name: "ArgumentKitTests", dependencies: ["ArgumentKit"]),
        .testTarget(
            name: "CLITests", dependencies: ["TestSupport", "FixtureServer", "AssetStore", "HTTPFetch", "StrictJSON"]),
    ]
)
