#!/usr/bin/env python3
"""Checks that every target's imports match its declared dependencies in Package.swift: no module
imported without being declared (it would build only by accident of another target's graph), and
no dependency declared without being imported. Exits 1 and lists the differences."""
import glob
import json
import re
import subprocess
import sys

SYSTEM = {"Foundation", "FoundationEssentials", "Glibc", "Darwin", "Synchronization", "Testing", "XCTest",
          "Dispatch", "_Concurrency"}
IMPORT = re.compile(r"^(?:@testable |@_exported |package |public |internal )?import (?:struct |enum |class |func )?(\w+)")


def main() -> int:
    package = json.loads(subprocess.run(["swift", "package", "dump-package"], check=True,
                                        capture_output=True, text=True).stdout)
    problems = []
    for target in package["targets"]:
        if target["type"] == "system":
            continue
        folder = target.get("path") or ("Tests/" if target["type"] == "test" else "Sources/") + target["name"]
        declared = set()
        for dependency in target["dependencies"]:
            for kind in ("byName", "product", "target"):
                if kind in dependency:
                    declared.add(dependency[kind][0])
        imported = set()
        for path in glob.glob(folder + "/**/*.swift", recursive=True):
            with open(path, encoding="utf-8") as source:
                for line in source:
                    match = IMPORT.match(line)
                    if match:
                        imported.add(match.group(1))
        imported -= SYSTEM | {target["name"]}
        undeclared, unused = sorted(imported - declared), sorted(declared - imported)
        if undeclared:
            problems.append(f"{target['name']}: imports {', '.join(undeclared)} without declaring it")
        if unused:
            problems.append(f"{target['name']}: declares {', '.join(unused)} but never imports it")
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
