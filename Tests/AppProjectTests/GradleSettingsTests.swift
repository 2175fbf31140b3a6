import AppProject
import Testing

/// `GradleSettings.read`: SDK levels in the Groovy and Kotlin forms, comments, flavours, expressions reported
/// (never guessed), and whether the module is an application.
@Suite struct GradleSettingsTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var text: String
        var minSdk: Int? = nil
        var minSdkLine: Int? = nil
        var targetSdk: Int? = nil
        var targetSdkLine: Int? = nil
        /// `setting@line expression` for each unreadable assignment.
        var unreadable: [String] = []
        var application: Bool = true
    }

    static let rows: [Row] = [
        Row(
            testDescription: "Groovy minSdk 24 / targetSdk 34",
            text: """
                plugins {
                    id 'com.android.application'
                }
                android {
                    compileSdk 35
                    defaultConfig {
                        minSdk 24
                        targetSdk 34
                    }
                }
                """,
            minSdk: 24, minSdkLine: 7, targetSdk: 34, targetSdkLine: 8),
        Row(
            testDescription: "Groovy minSdkVersion 24 / targetSdkVersion 33 (apply plugin:)",
            text: """
                apply plugin: 'com.android.application'
                android {
                    defaultConfig {
                        applicationId "com.example.shop"
                        minSdkVersion 24
                        targetSdkVersion 33
                        versionCode 12
                    }
                }
                """,
            minSdk: 24, minSdkLine: 5, targetSdk: 33, targetSdkLine: 6),
        Row(
            testDescription: "Groovy minSdkVersion(24) and targetSdkVersion(33)",
            text:
                "apply plugin: 'com.android.application'\nandroid { defaultConfig {\n minSdkVersion(24)\n targetSdkVersion(33) } }",
            minSdk: 24, minSdkLine: 3, targetSdk: 33, targetSdkLine: 4),
        Row(
            testDescription: "Kotlin minSdk = 24 / targetSdk = 35",
            text: """
                plugins {
                    id("com.android.application")
                    id("org.jetbrains.kotlin.android")
                }

                android {
                    namespace = "com.example.shop"
                    compileSdk = 35

                    defaultConfig {
                        applicationId = "com.example.shop"
                        minSdk = 24
                        targetSdk = 35
                        versionCode = 1
                    }
                }
                """,
            minSdk: 24, minSdkLine: 12, targetSdk: 35, targetSdkLine: 13),
        Row(
            testDescription: "Kotlin minSdkVersion(24) in the old DSL, one line",
            text:
                "plugins { id(\"com.android.application\") }\nandroid { defaultConfig { minSdkVersion(24); targetSdkVersion(34) } }",
            minSdk: 24, minSdkLine: 2, targetSdk: 34, targetSdkLine: 2),
        Row(
            testDescription: "no spaces around = (minSdk=26)",
            text:
                "apply plugin: 'com.android.application'\nandroid {\n defaultConfig {\n  minSdk=26\n  targetSdk=34\n }\n}",
            minSdk: 26, minSdkLine: 4, targetSdk: 34, targetSdkLine: 5),
        Row(
            testDescription: "// comments hide values",
            text: """
                apply plugin: 'com.android.application'
                android {
                    defaultConfig {
                        // minSdk 19
                        minSdk 23 // was 21
                        targetSdk 34
                        //targetSdk 35
                    }
                }
                """,
            minSdk: 23, minSdkLine: 5, targetSdk: 34, targetSdkLine: 6),
        Row(
            testDescription: "a /* */ comment over several lines hides values, lines stay true",
            text: """
                apply plugin: 'com.android.application'
                android {
                    defaultConfig {
                        /* old levels:
                        minSdk 16
                        targetSdk 36
                        */
                        minSdk 21 /* inline */ 
                        targetSdk /* 99 */ 34
                    }
                }
                """,
            minSdk: 21, minSdkLine: 8, targetSdk: 34, targetSdkLine: 9),
        Row(
            testDescription: "minSdkPreview, targetSdkPreview, compileSdk and maxSdk are not taken",
            text: """
                plugins { id("com.android.application") }
                android {
                    compileSdk = 35
                    defaultConfig {
                        minSdkPreview = "Baklava"
                        targetSdkPreview = "Baklava"
                        maxSdk = 34
                    }
                }
                """),
        Row(
            testDescription: "a version catalog expression is unreadable, with its line",
            text: """
                plugins { id("com.android.application") }
                android {
                    defaultConfig {
                        minSdk = libs.versions.minSdk.get().toInt()
                        targetSdk = 35
                    }
                }
                """,
            targetSdk: 35, targetSdkLine: 5, unreadable: ["minSdk@4 libs.versions.minSdk.get().toInt()"]),
        Row(
            testDescription: "rootProject.ext values are unreadable (React Native's template)",
            text: """
                apply plugin: "com.android.application"
                android {
                    defaultConfig {
                        minSdkVersion rootProject.ext.minSdkVersion
                        targetSdkVersion rootProject.ext.targetSdkVersion
                    }
                }
                """,
            unreadable: ["minSdk@4 rootProject.ext.minSdkVersion", "targetSdk@5 rootProject.ext.targetSdkVersion"]),
        Row(
            testDescription: "Flutter's flutter.minSdkVersion is unreadable",
            text:
                "apply plugin: 'com.android.application'\nandroid { defaultConfig {\n minSdkVersion flutter.minSdkVersion\n } }",
            unreadable: ["minSdk@3 flutter.minSdkVersion"]),
        Row(
            testDescription: "a level out of range is unreadable",
            text: "apply plugin: 'com.android.application'\nminSdk 0\ntargetSdk 340",
            unreadable: ["minSdk@2 0", "targetSdk@3 340"]),
        Row(
            testDescription: "flavours: the lowest minSdk and the highest targetSdk",
            text: """
                apply plugin: 'com.android.application'
                android {
                    defaultConfig {
                        minSdk 24
                        targetSdk 33
                    }
                    flavorDimensions "tier"
                    productFlavors {
                        free { dimension "tier"; minSdk 21 }
                        paid {
                            dimension "tier"
                            minSdk 26
                            targetSdk 34
                        }
                    }
                }
                """,
            minSdk: 21, minSdkLine: 9, targetSdk: 34, targetSdkLine: 13),
        Row(
            testDescription: "a number besides an expression: the number is taken, the expression still listed",
            text:
                "apply plugin: 'com.android.application'\nminSdk 24\nproductFlavors { legacy { minSdk rootProject.ext.legacyMin } }",
            minSdk: 24, minSdkLine: 2, unreadable: ["minSdk@3 rootProject.ext.legacyMin"]),
        Row(
            testDescription: "a library module (com.android.library) is no application",
            text: "plugins { id 'com.android.library' }\nandroid { defaultConfig { minSdk 21 } }", minSdk: 21,
            minSdkLine: 2, application: false),
        Row(
            testDescription: "a commented-out application plugin does not make an application",
            text: "plugins {\n    // id 'com.android.application'\n    id 'com.android.library'\n}",
            application: false),
        Row(
            testDescription: "properties named like the keys (ext.minSdkVersion, myminSdk) are not assignments",
            text: "apply plugin: 'com.android.application'\next.minSdkVersion = 19\ndef myminSdk = 18\nminSdk 22",
            minSdk: 22, minSdkLine: 4),
    ]

    @Test(arguments: rows)
    func reads(_ row: Row) {
        let settings = GradleSettings.read(row.text)
        #expect(settings.minSdk == row.minSdk)
        #expect(settings.minSdkLine == row.minSdkLine)
        #expect(settings.targetSdk == row.targetSdk)
        #expect(settings.targetSdkLine == row.targetSdkLine)
        #expect(settings.unreadable.map { "\($0.setting)@\($0.line) \($0.expression)" } == row.unreadable)
        #expect(settings.isApplication == row.application)
    }

    /// Gradle files that today read wrongly.
    struct Misread: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var issue: String
        var text: String
        var minSdk: Int? = nil
        var targetSdk: Int? = nil
        var application: Bool
    }

    static let misreadings: [Misread] = [
        Misread(
            testDescription: "a dotted receiver (defaultConfig.minSdk = 24) is silently missed",
            issue: "GradleSettings.assignments treats '.' as a word character, so `defaultConfig.minSdk = 24` is "
                + "neither read nor reported unreadable: the default is used without a warning",
            text: "plugins { id(\"com.android.application\") }\nandroid.defaultConfig.minSdk = 24\n"
                + "android.defaultConfig.targetSdk = 34\n",
            minSdk: 24, targetSdk: 34, application: true),
        Misread(
            testDescription: "CRLF line ends",
            issue: "GradleSettings.read splits on Character \"\\n\", which never matches the grapheme \"\\r\\n\": the "
                + "whole file is one line, the value runs to the next '}' and is reported unreadable at line 1",
            text:
                "apply plugin: 'com.android.application'\r\nandroid {\r\n  defaultConfig {\r\n    minSdk 24\r\n    targetSdk 34\r\n  }\r\n}\r\n",
            minSdk: 24, targetSdk: 34, application: true),
        Misread(
            testDescription: "a '/*' inside a string ('META-INF/*') starts a comment that hides the rest",
            issue: "GradleSettings.stripComments does not skip string literals",
            text: """
                apply plugin: 'com.android.application'
                android {
                    packagingOptions { exclude 'META-INF/*' }
                    defaultConfig {
                        minSdk 24
                        targetSdk 34
                    }
                }
                """,
            minSdk: 24, targetSdk: 34, application: true),
        Misread(
            testDescription: "the root build file's 'apply false' declaration is no application module",
            issue: "isApplication is any line containing com.android.application, so Android Studio's root "
                + "build.gradle(.kts) `id(\"com.android.application\") version \"8.x\" apply false` counts as an app",
            text: """
                plugins {
                    id("com.android.application") version "8.5.0" apply false
                    id("org.jetbrains.kotlin.android") version "1.9.24" apply false
                }
                """,
            application: false),
        Misread(
            testDescription: "the version-catalog plugin alias (alias(libs.plugins.android.application))",
            issue: "Android Studio's current template applies the plugin through the version catalog; "
                + "no line contains com.android.application, so the app module is not recognised",
            text: """
                plugins {
                    alias(libs.plugins.android.application)
                    alias(libs.plugins.kotlin.android)
                }
                android {
                    defaultConfig {
                        minSdk = 24
                        targetSdk = 35
                    }
                }
                """,
            minSdk: 24, targetSdk: 35, application: true),
    ]

    @Test(arguments: misreadings)
    func misread(_ row: Misread) {
        let settings = GradleSettings.read(row.text)
        #expect(settings.minSdk == row.minSdk)
        #expect(settings.targetSdk == row.targetSdk)
        #expect(settings.isApplication == row.application)
        #expect(settings.unreadable.isEmpty)

    }
}
