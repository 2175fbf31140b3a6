#!/usr/bin/env python3
"""Writes docs/finding-codes.md from the documented code constants in Sources/ (run by `make docs`).

Every `public static let name = "family.code"` preceded by `///` lines in a *FindingCode*.swift file becomes
a table row; CLITests/FindingCodeDocsTests checks that the document lists every code the sources define.
"""
import glob, re, os

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
pattern = re.compile(r'((?:[ \t]*///[^\n]*\n)+)[ \t]*public static let \w+ = "([a-z]+\.[A-Za-z0-9.]+)"')
families = {}
for path in sorted(glob.glob(os.path.join(root, "Sources", "**", "*FindingCode*.swift"), recursive=True)):
    text = open(path, encoding="utf-8").read()
    for doc, code in pattern.findall(text):
        meaning = " ".join(line.strip()[3:].strip() for line in doc.strip().splitlines())
        meaning = meaning.replace("``", "`").replace("|", "\\|")
        families.setdefault(code.split(".")[0], []).append((code, meaning))

# The store's problems are an enum whose raw values are the code suffixes (`store.<case>`).
store = open(os.path.join(root, "Sources", "AssetStore", "Maintenance", "Maintenance.swift"), encoding="utf-8").read()
kinds = store[store.index("public enum Kind: String"):]
kinds = kinds[:kinds.index("\n    }\n")]
for doc, case in re.findall(r'((?:[ \t]*///[^\n]*\n)+)[ \t]*case (\w+)', kinds):
    meaning = " ".join(line.strip()[3:].strip() for line in doc.strip().splitlines())
    families.setdefault("store", []).append((f"store.{case}", meaning))

# The engine's fetch failures: `asset.<case>` (FetchFailure.findingCode), one per failure class.
fetch = open(os.path.join(root, "Sources", "HTTPFetch", "Model", "FetchOutcome.swift"), encoding="utf-8").read()
failures = fetch[fetch.index("public enum FetchFailure"):]
failures = failures[:failures.index("public var findingCode")]
for doc, case in re.findall(r'((?:[ \t]*///[^\n]*\n)+)[ \t]*case (\w+)', failures):
    meaning = " ".join(line.strip()[3:].strip() for line in doc.strip().splitlines())
    families.setdefault("asset", []).append((f"asset.{case}", meaning + " (error on a needed asset, else warning)"))

out = ["# Finding codes", "",
       "Generated from the sources by `make docs` (scripts/finding-codes.py). Codes are stable API: grep and",
       "suppress them. The severity is named in each meaning.", ""]
for family in ["input", "card", "asset", "image", "video", "pass", "store"]:
    if family not in families:
        continue
    out += [f"## `{family}.*`", "", "| code | meaning |", "|---|---|"]
    out += [f"| `{code}` | {meaning} |" for code, meaning in families[family]]
    out.append("")
open(os.path.join(root, "docs", "finding-codes.md"), "w", encoding="utf-8").write("\n".join(out))
