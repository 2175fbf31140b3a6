import AppProject
import Testing

/// A `project.pbxproj` as Xcode writes it: a PBXProject with its configurations, native targets with theirs,
/// file references, groups and build phases around them.
enum PBXProj {
    struct Configuration: Sendable {
        var name: String
        var deploymentTarget: String? = nil
        var infoPlist: String? = nil
        /// More build settings, each `KEY = value;`.
        var extra: [String] = []
    }

    struct Target: Sendable {
        var name: String
        var productType: String = "com.apple.product-type.application"
        var configurations: [Configuration]
    }

    static let application = "com.apple.product-type.application"
    static let unitTests = "com.apple.product-type.bundle.unit-test"
    static let appExtension = "com.apple.product-type.app-extension"

    /// `value` as Xcode writes it: bare when it can be, else quoted.
    static func quoted(_ value: String) -> String {
        let bare = value.unicodeScalars.allSatisfy { scalar in
            (scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)))
                || "_$/:.-+".unicodeScalars.contains(scalar)
        }
        return bare && !value.isEmpty ? value : "\"\(value)\""
    }

    /// The text; ids are 24 hex digits, as Xcode's.
    static func text(project: [Configuration], targets: [Target]) -> String {
        var counter = 0
        func id() -> String {
            counter += 1
            return String(repeating: "0", count: 24 - String(counter, radix: 16).count)
                + String(counter, radix: 16)
                .uppercased()
        }
        func settings(_ config: Configuration, target: Bool) -> String {
            var lines: [String] = []
            if target {
                lines += [
                    "ASSETCATALOG_COMPILER_APPICON_NAME = AppIcon;", "CODE_SIGN_STYLE = Automatic;",
                    "CURRENT_PROJECT_VERSION = 1;", "\"CODE_SIGN_IDENTITY[sdk=iphoneos*]\" = \"iPhone Developer\";",
                    "LD_RUNPATH_SEARCH_PATHS = (\n\t\t\t\t\t\"$(inherited)\",\n\t\t\t\t\t\"@executable_path/Frameworks\",\n\t\t\t\t);",
                    "PRODUCT_BUNDLE_IDENTIFIER = \"com.example.$(PRODUCT_NAME:rfc1034identifier)\";",
                    "PRODUCT_NAME = \"$(TARGET_NAME)\";", "SWIFT_VERSION = 5.0;", "TARGETED_DEVICE_FAMILY = \"1,2\";",
                ]
            } else {
                lines += [
                    "ALWAYS_SEARCH_USER_PATHS = NO;", "CLANG_ENABLE_MODULES = YES;",
                    "GCC_PREPROCESSOR_DEFINITIONS = (\n\t\t\t\t\t\"DEBUG=1\",\n\t\t\t\t\t\"$(inherited)\",\n\t\t\t\t);",
                    "SDKROOT = iphoneos;", "SWIFT_ACTIVE_COMPILATION_CONDITIONS = \"DEBUG $(inherited)\";",
                ]
            }
            if let plist = config.infoPlist { lines.append("INFOPLIST_FILE = \"\(plist)\";") }
            if let target = config.deploymentTarget { lines.append("IPHONEOS_DEPLOYMENT_TARGET = \(target);") }
            lines += config.extra
            return lines.sorted().map { "\t\t\t\t" + $0 }.joined(separator: "\n")
        }
        var configurationSection: [String] = []
        func list(_ configs: [Configuration], target: Bool, owner: String) -> (String, String) {
            let listID = id()
            var ids: [String] = []
            for config in configs {
                let configID = id()
                ids.append(configID)
                configurationSection.append(
                    """
                    \t\t\(configID) /* \(config.name) */ = {
                    \t\t\tisa = XCBuildConfiguration;
                    \t\t\tbuildSettings = {
                    \(settings(config, target: target))
                    \t\t\t};
                    \t\t\tname = \(config.name);
                    \t\t};
                    """)
            }
            let body = """
                \t\t\(listID) /* Build configuration list for \(owner) */ = {
                \t\t\tisa = XCConfigurationList;
                \t\t\tbuildConfigurations = (
                \(ids.map { "\t\t\t\t\($0) /* \($0) */," }.joined(separator: "\n"))
                \t\t\t);
                \t\t\tdefaultConfigurationIsVisible = 0;
                \t\t\tdefaultConfigurationName = Release;
                \t\t};
                """
            return (listID, body)
        }
        let projectID = id()
        let mainGroup = id()
        var lists: [String] = []
        var nativeTargets: [String] = []
        var fileReferences: [String] = []
        var targetIDs: [String] = []
        for target in targets {
            let targetID = id()
            targetIDs.append(targetID)
            let productID = id()
            let phaseID = id()
            fileReferences.append(
                "\t\t\(productID) /* \(target.name).app */ = {isa = PBXFileReference; explicitFileType = wrapper.application; "
                    + "includeInIndex = 0; path = \(quoted(target.name + ".app")); sourceTree = BUILT_PRODUCTS_DIR; };")
            let (listID, body) = list(target.configurations, target: true, owner: "PBXNativeTarget \"\(target.name)\"")
            lists.append(body)
            nativeTargets.append(
                """
                \t\t\(targetID) /* \(target.name) */ = {
                \t\t\tisa = PBXNativeTarget;
                \t\t\tbuildConfigurationList = \(listID) /* Build configuration list for PBXNativeTarget "\(target.name)" */;
                \t\t\tbuildPhases = (
                \t\t\t\t\(phaseID) /* Sources */,
                \t\t\t);
                \t\t\tbuildRules = (
                \t\t\t);
                \t\t\tdependencies = (
                \t\t\t);
                \t\t\tname = \(quoted(target.name));
                \t\t\tproductName = \(quoted(target.name));
                \t\t\tproductReference = \(productID) /* \(target.name).app */;
                \t\t\tproductType = "\(target.productType)";
                \t\t};
                \t\t\(phaseID) /* Sources */ = {
                \t\t\tisa = PBXSourcesBuildPhase;
                \t\t\tbuildActionMask = 2147483647;
                \t\t\tfiles = (
                \t\t\t);
                \t\t\trunOnlyForDeploymentPostprocessing = 0;
                \t\t};
                """)
        }
        let (projectList, projectListBody) = list(project, target: false, owner: "PBXProject \"Shop\"")
        lists.append(projectListBody)
        return """
            // !$*UTF8*$!
            {
            \tarchiveVersion = 1;
            \tclasses = {
            \t};
            \tobjectVersion = 56;
            \tobjects = {

            /* Begin PBXFileReference section */
            \(fileReferences.joined(separator: "\n"))
            \t\t\(id()) /* Info.plist */ = {isa = PBXFileReference; lastKnownFileType = text.plist.xml; path = Info.plist; sourceTree = "<group>"; };
            /* End PBXFileReference section */

            /* Begin PBXGroup section */
            \t\t\(mainGroup) = {
            \t\t\tisa = PBXGroup;
            \t\t\tchildren = (
            \t\t\t);
            \t\t\tsourceTree = "<group>";
            \t\t};
            /* End PBXGroup section */

            /* Begin PBXNativeTarget section */
            \(nativeTargets.joined(separator: "\n"))
            /* End PBXNativeTarget section */

            /* Begin PBXProject section */
            \t\t\(projectID) /* Project object */ = {
            \t\t\tisa = PBXProject;
            \t\t\tattributes = {
            \t\t\t\tBuildIndependentTargetsInParallel = 1;
            \t\t\t\tLastSwiftUpdateCheck = 1500;
            \t\t\t\tLastUpgradeCheck = 1500;
            \t\t\t};
            \t\t\tbuildConfigurationList = \(projectList) /* Build configuration list for PBXProject "Shop" */;
            \t\t\tcompatibilityVersion = "Xcode 14.0";
            \t\t\tdevelopmentRegion = en;
            \t\t\thasScannedForEncodings = 0;
            \t\t\tknownRegions = (
            \t\t\t\ten,
            \t\t\t\tBase,
            \t\t\t);
            \t\t\tmainGroup = \(mainGroup);
            \t\t\tprojectDirPath = "";
            \t\t\tprojectRoot = "";
            \t\t\ttargets = (
            \(targetIDs.map { "\t\t\t\t\($0)," }.joined(separator: "\n"))
            \t\t\t);
            \t\t};
            /* End PBXProject section */

            /* Begin XCBuildConfiguration section */
            \(configurationSection.joined(separator: "\n"))
            /* End XCBuildConfiguration section */

            /* Begin XCConfigurationList section */
            \(lists.joined(separator: "\n"))
            /* End XCConfigurationList section */
            \t};
            \trootObject = \(projectID) /* Project object */;
            }

            """
    }

    /// A typical app: the project at iOS 15, the app target setting nothing itself, its tests and a
    /// notification service extension.
    static func typical(app: [Configuration]? = nil, project: [Configuration]? = nil) -> String {
        text(
            project: project ?? [
                .init(name: "Debug", deploymentTarget: "15.0"), .init(name: "Release", deploymentTarget: "15.0"),
            ],
            targets: [
                .init(
                    name: "Shop",
                    configurations: app ?? [
                        .init(name: "Debug", infoPlist: "Shop/Info.plist"),
                        .init(name: "Release", infoPlist: "Shop/Info.plist"),
                    ]),
                .init(
                    name: "ShopTests", productType: unitTests,
                    configurations: [.init(name: "Debug", deploymentTarget: "12.0", infoPlist: "ShopTests/Info.plist")]),
                .init(
                    name: "NotificationService", productType: appExtension,
                    configurations: [
                        .init(name: "Debug", deploymentTarget: "11.0", infoPlist: "NotificationService/Info.plist")
                    ]),
            ])
    }
}

@Suite struct XcodeProjectTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var text: String
        /// `name deploymentTarget@configuration infoPlist` per app target, sorted by name.
        var targets: [String]
    }

    typealias C = PBXProj.Configuration

    static let rows: [Row] = [
        Row(
            testDescription: "a typical project: only the app target, the project's deployment target",
            text: PBXProj.typical(), targets: ["Shop 15@Debug Shop/Info.plist"]),
        Row(
            testDescription: "the lowest of the target's configurations (Release 14.0 under Debug 16.4)",
            text: PBXProj.typical(app: [
                C(name: "Debug", deploymentTarget: "16.4", infoPlist: "Shop/Info.plist"),
                C(name: "Release", deploymentTarget: "14.0", infoPlist: "Shop/Info.plist"),
            ]),
            targets: ["Shop 14@Release Shop/Info.plist"]),
        Row(
            testDescription: "the project's value where a configuration sets none",
            text: PBXProj.typical(
                app: [
                    C(name: "Debug", deploymentTarget: "17.0", infoPlist: "Shop/Info.plist"),
                    C(name: "Release", infoPlist: "Shop/Info.plist"),
                ],
                project: [C(name: "Debug", deploymentTarget: "12.0"), C(name: "Release", deploymentTarget: "13.0")]),
            targets: ["Shop 13@Release Shop/Info.plist"]),
        Row(
            testDescription: "a quoted deployment target",
            text: PBXProj.typical(app: [C(name: "Release", deploymentTarget: "\"16.0\"", infoPlist: "Shop/Info.plist")]
            ),
            targets: ["Shop 16@Release Shop/Info.plist"]),
        Row(
            testDescription: "no deployment target anywhere",
            text: PBXProj.text(
                project: [C(name: "Release")], targets: [.init(name: "Shop", configurations: [C(name: "Release")])]),
            targets: ["Shop nil@nil nil"]),
        Row(
            testDescription: "$(SRCROOT)/ is removed from INFOPLIST_FILE",
            text: PBXProj.typical(app: [C(name: "Release", infoPlist: "$(SRCROOT)/Shop/Supporting Files/Info.plist")]),
            targets: ["Shop 15@Release Shop/Supporting Files/Info.plist"]),
        Row(
            testDescription: "${SRCROOT}/ and $(PROJECT_DIR)/ are removed too",
            text: PBXProj.text(
                project: [C(name: "Release", deploymentTarget: "13.0")],
                targets: [
                    .init(name: "A", configurations: [C(name: "Release", infoPlist: "${SRCROOT}/A/Info.plist")]),
                    .init(name: "B", configurations: [C(name: "Release", infoPlist: "$(PROJECT_DIR)/B/Info.plist")]),
                ]),
            targets: ["A 13@Release A/Info.plist", "B 13@Release B/Info.plist"]),
        Row(
            testDescription: "two app targets, each with its own settings",
            text: PBXProj.text(
                project: [C(name: "Debug", deploymentTarget: "14.0"), C(name: "Release", deploymentTarget: "14.0")],
                targets: [
                    .init(name: "Shop", configurations: [C(name: "Release", infoPlist: "Shop/Info.plist")]),
                    .init(
                        name: "Shop Lite",
                        configurations: [C(name: "Debug", deploymentTarget: "16.0", infoPlist: "Lite/Info.plist")]),
                    .init(
                        name: "ShopUITests", productType: "com.apple.product-type.bundle.ui-testing",
                        configurations: [C(name: "Debug")]),
                ]),
            targets: ["Shop 14@Release Shop/Info.plist", "Shop Lite 16@Debug Lite/Info.plist"]),
        Row(
            testDescription: "only extensions and tests: no app target",
            text: PBXProj.text(
                project: [C(name: "Release", deploymentTarget: "13.0")],
                targets: [
                    .init(name: "Widget", productType: PBXProj.appExtension, configurations: [C(name: "Release")])
                ]),
            targets: []),
    ]

    @Test(arguments: rows)
    func reads(_ row: Row) throws {
        let settings = try XcodeProjectSettings.read(row.text, file: "Shop.xcodeproj/project.pbxproj")
        let described = settings.appTargets.map { target in
            "\(target.name) \(target.deploymentTarget.map(String.init) ?? "nil")@"
                + "\(target.deploymentTargetConfiguration ?? "nil") \(target.infoPlist ?? "nil")"
        }
        #expect(described == row.targets)
    }

    struct Malformed: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var text: String
        var refusal: Refusal
    }

    static let malformedCases: [Malformed] = [
        Malformed(
            testDescription: "an unclosed dictionary",
            text: "// !$*UTF8*$!\n{\n\tarchiveVersion = 1;\n\tobjects = {\n\t\tA = { isa = PBXProject; };\n",
            refusal: Refusal(reason: ["a dictionary is not closed"], line: .at(6))),
        Malformed(
            testDescription: "a missing ';' after a value",
            text: "{\n\tarchiveVersion = 1;\n\tobjectVersion = 56\n\tobjects = {\n\t};\n}\n",
            refusal: Refusal(reason: ["';' expected after 'objectVersion'"], line: .at(4))),
        Malformed(
            testDescription: "a missing '='",
            text: "{\n\tarchiveVersion 1;\n}",
            refusal: Refusal(reason: ["'=' expected after 'archiveVersion'"], line: .at(2))),
        Malformed(
            testDescription: "an unclosed quoted string",
            text: "{\n\tobjects = {\n\t\tA = { name = \"Shop;\n\t};\n}\n",
            refusal: Refusal(reason: ["a quoted string is not closed"])),
        Malformed(
            testDescription: "an unclosed array",
            text: "{\n\ttargets = (\n\t\tA,\n", refusal: Refusal(reason: ["an array is not closed"], line: .at(4))),
        Malformed(
            testDescription: "text after the end",
            text: "{ objects = { }; }\n}\n",
            refusal: Refusal(reason: ["text after the end of the property list"], line: .at(2))),
        Malformed(
            testDescription: "an unexpected character",
            text: "{\n\tobjects = <data>;\n}", refusal: Refusal(reason: ["unexpected '<'"], line: .at(2))),
        Malformed(
            testDescription: "an empty file", text: "", refusal: Refusal(reason: ["the property list ends early"])),
        Malformed(
            testDescription: "only the UTF-8 marker comment",
            text: "// !$*UTF8*$!\n", refusal: Refusal(reason: ["the property list ends early"])),
        Malformed(
            testDescription: "an unterminated /* comment",
            text: "{ objects = { }; /* never closed", refusal: Refusal(reason: ["a dictionary is not closed"])),
        Malformed(
            testDescription: "no objects dictionary",
            text: "{ archiveVersion = 1; }", refusal: Refusal(reason: ["no 'objects' dictionary"], line: .none)),
        Malformed(
            testDescription: "nesting deeper than 200 levels",
            text: String(repeating: "(", count: 1_000),
            refusal: Refusal(reason: ["nested deeper than 200 levels"])),
        Malformed(
            testDescription: "an XML plist where OpenStep text is expected",
            text: "<?xml version=\"1.0\"?><plist/>", refusal: Refusal(reason: ["unexpected '<'"], line: .at(1))),
    ]

    @Test(arguments: malformedCases)
    func malformed(_ row: Malformed) {
        let error = appFileError { () throws(AppFileError) in
            try XcodeProjectSettings.read(row.text, file: "Shop.xcodeproj/project.pbxproj")
        }
        if let error { row.refusal.check(error, file: "Shop.xcodeproj/project.pbxproj") }
    }

    struct Podfile: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var text: String
        /// `major@line`, or nil.
        var found: String?
    }

    static let podfiles: [Podfile] = [
        Podfile(
            testDescription: "platform :ios, '15.0' after the template's comment",
            text:
                "# Uncomment the next line to define a global platform for your project\nplatform :ios, '15.0'\n\ntarget 'Shop' do\n  use_frameworks!\nend\n",
            found: "15@2"),
        Podfile(testDescription: "double quotes", text: "platform :ios, \"14.1\"\n", found: "14@1"),
        Podfile(testDescription: "a major version only", text: "  platform :ios, '16'", found: "16@1"),
        Podfile(
            testDescription: "commented out (the template's default)",
            text: "# platform :ios, '9.0'\ntarget 'Shop' do\nend\n", found: nil),
        Podfile(
            testDescription: "a comment after the value", text: "platform :ios, '13.0' # minimum\n", found: "13@1"),
        Podfile(
            testDescription: "the first uncommented line wins",
            text: "#platform :ios, '10.0'\nplatform :ios, '12.0'\nplatform :ios, '17.0'\n", found: "12@2"),
        Podfile(testDescription: "another platform", text: "platform :osx, '11.0'\n", found: nil),
        Podfile(testDescription: "no version", text: "platform :ios\n", found: nil),
        Podfile(
            testDescription: "a source URL's // is no comment for the platform line",
            text: "source 'https://cdn.cocoapods.org/'\nplatform :ios, '15.0'\n", found: "15@2"),
    ]

    @Test(arguments: podfiles)
    func podfile(_ row: Podfile) {
        #expect(PodfileReader.deploymentTarget(row.text).map { "\($0.major)@\($0.line)" } == row.found)
    }

    @Test func aMacOSAppTargetIsNoIOSAppTarget() throws {
        let text = PBXProj.text(
            project: [.init(name: "Release", deploymentTarget: "15.0")],
            targets: [
                .init(name: "Shop", configurations: [.init(name: "Release", infoPlist: "Shop/Info.plist")]),
                .init(
                    name: "ShopMac",
                    configurations: [
                        .init(
                            name: "Release", infoPlist: "ShopMac/Info.plist",
                            extra: ["SDKROOT = macosx;", "MACOSX_DEPLOYMENT_TARGET = 13.0;"])
                    ]),
                .init(
                    name: "ShopTV",
                    configurations: [
                        .init(
                            name: "Release", infoPlist: "ShopTV/Info.plist",
                            extra: ["SDKROOT = appletvos;", "TVOS_DEPLOYMENT_TARGET = 16.0;"])
                    ]),
            ])
        let settings = try XcodeProjectSettings.read(text, file: "p")
        #expect(settings.appTargets.map(\.name) == ["Shop"])

    }

    @Test func aPodfileWithCRLFLineEnds() {
        let found = PodfileReader.deploymentTarget("# Uncomment\r\nplatform :ios, '15.0'\r\n")
        #expect(found.map { "\($0.major)@\($0.line)" } == "15@2")

    }

    @Test func aProjectWithCRLFLineEndsReadsTheSame() throws {
        let text = PBXProj.typical().replacingOccurrences(of: "\n", with: "\r\n")
        let settings = try XcodeProjectSettings.read(text, file: "p")
        #expect(settings.appTargets.map(\.deploymentTarget) == [15])
    }
}
