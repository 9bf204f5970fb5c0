"""Checks the PrometheusRule with promtool: `promtool check rules` on its groups, `promtool test rules` on
deploy/prometheus/alerts.test.yaml, and that every alert has a test and a runbook section that exists. Every
runbook_url is `RUNBOOK#section`, the base coming from the rule's push-worker/runbook annotation (kustomize's
replacement in base/kustomization.yaml, done here the same way), so that it is set in one place.

Usage: python check_rules.py REPOSITORY_ROOT   (exit 0 when all hold; otherwise promtool's output or one line per
failure)
"""

import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

import yaml


def main():
    root = pathlib.Path(sys.argv[1])
    rule = yaml.safe_load((root / "deploy/kubernetes/base/prometheusrule.yaml").read_text())
    tests = root / "deploy/prometheus/alerts.test.yaml"
    runbook = (root / "deploy/RUNBOOK.md").read_text()
    anchors = {re.sub(r"[^a-z0-9 -]", "", line[3:].strip().lower()).replace(" ", "-")
               for line in runbook.splitlines() if line.startswith("## ")}
    failures = []
    alerts = [r for group in rule["spec"]["groups"] for r in group["rules"] if "alert" in r]
    tested = set(re.findall(r"alertname: (\w+)", tests.read_text()))
    base = rule["metadata"].get("annotations", {}).get("push-worker/runbook", "")
    if not base.startswith("https://"):
        failures.append("PrometheusRule: the push-worker/runbook annotation must hold the runbook's https URL")
    for alert in alerts:
        if alert["alert"] not in tested:
            failures.append(f"{alert['alert']}: no promtool test in {tests.name}")
        url = alert.get("annotations", {}).get("runbook_url", "")
        prefix, _, anchor = url.partition("#")
        if prefix != "RUNBOOK":
            failures.append(f"{alert['alert']}: runbook_url must be RUNBOOK#section (the base is set once)")
        if anchor not in anchors:
            failures.append(f"{alert['alert']}: runbook_url anchor '{anchor}' is not a section of deploy/RUNBOOK.md")
        if url:
            alert["annotations"]["runbook_url"] = base + "#" + anchor
    with tempfile.TemporaryDirectory() as directory:
        rules = pathlib.Path(directory) / "rules.yaml"
        rules.write_text(yaml.safe_dump({"groups": rule["spec"]["groups"]}))
        shutil.copy(tests, pathlib.Path(directory) / tests.name)
        for command in [["promtool", "check", "rules", str(rules)],
                        ["promtool", "test", "rules", str(pathlib.Path(directory) / tests.name)]]:
            result = subprocess.run(command, capture_output=True, text=True)
            if result.returncode != 0:
                failures.append(" ".join(command[:3]) + " failed:\n" + result.stdout + result.stderr)
    for failure in failures:
        print(failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
