"""Checks deploy/RUNBOOK.md's commands against the repository: every repository path it names exists, every
`push-worker` subcommand it runs is one the executable has (Sources/push-worker), it never advises scaling the
Deployment to 0 (KEDA scales it back: the paused-replicas annotation is the way), and what it says of the image's
shell matches the Dockerfile's runtime stage.

Usage: python check_runbook.py REPOSITORY_ROOT   (exit 0 when all hold; else one line per failure)
"""

import pathlib
import re
import sys

SHELL_LESS_BASES = ("gcr.io/distroless", "scratch", "cgr.dev/chainguard/static")


def main():
    root = pathlib.Path(sys.argv[1])
    runbook = (root / "deploy/RUNBOOK.md").read_text()
    flat = re.sub(r"\s+", " ", runbook)
    failures = []
    for path in sorted(set(re.findall(r"`((?:deploy|docs|Sources|Tests|schemas)/[A-Za-z0-9_./-]+)`", runbook))):
        if not (root / path).exists():
            failures.append(f"names {path}, which does not exist")
    names = set()
    for source in (root / "Sources/push-worker").glob("*.swift"):
        names |= set(re.findall(r'name: "([a-z -]+)"', source.read_text()))
    subcommands = {name.split()[0] for name in names if name != "push-worker"}
    for used in sorted(set(re.findall(r"`push-worker ([a-z][a-z-]+)", flat))):
        if used not in subcommands:
            failures.append(f"runs `push-worker {used}`, which is no subcommand ({sorted(subcommands)})")
    if re.search(r"\bscal\w*\b[^.]{0,40}\bto 0\b", flat) or re.search(r"--replicas[= ]0\b", flat):
        failures.append("advises scaling the Deployment to 0; KEDA scales it back (use autoscaling.keda.sh/paused-replicas)")
    if not re.search(r"kubectl annotate scaledobject \S+ autoscaling\.keda\.sh/paused-replicas=\d", flat):
        failures.append("does not show KEDA's paused-replicas annotation for stopping the fleet")
    dockerfile = (root / "deploy/Dockerfile").read_text()
    runtime = re.findall(r"^FROM (\S+)", dockerfile, re.MULTILINE)[-1]
    shell_less = runtime.startswith(SHELL_LESS_BASES)
    says_shell_less = re.search(r"(has no shell|shell-less|without a shell)", flat) is not None
    if says_shell_less != shell_less:
        failures.append(f"says the image {'has no' if says_shell_less else 'has a'} shell; its runtime stage is {runtime}")
    for failure in failures:
        print(failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
