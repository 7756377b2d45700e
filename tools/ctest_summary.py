#!/usr/bin/env python3
"""The test command's last words: how many CTest entries ran, passed, failed and
were skipped, and why each skip happened (the line the test printed).

    ctest_summary.py [--ci] STAGE=BUILD_DIR:JUNIT.xml ...

One argument per CTest run of tools/test.sh (the JUnit file from ctest
--output-junit, and its build folder for the entries' labels). With --ci, a
skipped entry that is not a GPU test (label `gpu`) fails: in CI every
dependency of a non-GPU test is installed, so such a skip hides a break
(label `cpu_feature`: an instruction set the CPU lacks, and label `needs_privilege`: a test that needs root and a mount namespace, which
a CI container may not grant, is only reported).
Exit status: 0, or 1 when an entry failed or (--ci) skipped without reason.
"""
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

SKIP_LINE = re.compile(r"(CUJIT_SKIPPED: .*|.*\bskipp(ed|ing)\b.*)", re.IGNORECASE)


def labelled(build, label):
    """Names of the entries with `label` in one build folder."""
    out = subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1"], capture_output=True, text=True)
    if out.returncode != 0:
        return set()
    names = set()
    for t in json.loads(out.stdout).get("tests", []):
        for p in t.get("properties", []):
            if p.get("name") == "LABELS" and label in p.get("value", []):
                names.add(t["name"])
    return names


def reason(case):
    text = (case.findtext("system-out") or "").splitlines()
    for line in text:
        m = SKIP_LINE.search(line)
        if m:
            return m.group(1).strip()
    sk = case.find("skipped")
    return sk.get("message", "no reason printed") if sk is not None else "no reason printed"


def main(argv):
    ci = "--ci" in argv
    runs = [a for a in argv if a != "--ci"]
    total = passed = 0
    failed, skipped = [], []
    for run in runs:
        stage, _, rest = run.partition("=")
        build, _, junit = rest.partition(":")
        try:
            root = ET.parse(junit).getroot()
        except (OSError, ET.ParseError) as e:
            failed.append(f"{stage}: no CTest results ({e})")
            continue
        gpu, privileged = labelled(build, "gpu"), labelled(build, "needs_privilege")
        cpu_feature = labelled(build, "cpu_feature")  # an instruction set this CPU lacks
        for case in root.iter("testcase"):
            name = case.get("name")
            total += 1
            if case.find("skipped") is not None or case.get("status") == "notrun":
                skipped.append((stage, name, "GPU test" if name in gpu else "needs root" if name in privileged
                                else "CPU lacks the instruction set" if name in cpu_feature else "", reason(case)))
            elif case.find("failure") is not None or case.get("status") == "fail":
                failed.append(f"{stage}: {name}")
            else:
                passed += 1
    print(f"\n==== tests: {total} run, {passed} passed, {len(failed)} failed, {len(skipped)} skipped")
    for f in failed:
        print(f"  failed  {f}")
    bad = []
    for stage, name, kind, why in skipped:
        print(f"  skipped {stage}: {name} ({kind or 'NOT a GPU test'}): {why}")
        if ci and not kind:
            bad.append(name)
    if bad:
        print(f"CI: {len(bad)} non-GPU test(s) skipped ({', '.join(bad)}): their dependencies must be installed")
    return 1 if failed or bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
