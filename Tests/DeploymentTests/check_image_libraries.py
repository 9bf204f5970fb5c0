"""Checks deploy/Dockerfile's runtime stage against the libraries the worker binary loads (`ldd`).

Usage: python check_image_libraries.py DOCKERFILE BINARY   (exit 0 when every check holds; else one line each)

The binary is the debug build the tests already have: its shared-library set is the release binary's plus the
Swift runtime, which the release build links statically (--static-swift-stdlib) and which is therefore left out
(libraries no Debian package owns). Every other library must come from a package the runtime stage installs, one
of their dependencies, a package every Debian image has (Priority: required), or a library the runtime stage copies
in itself (`COPY --from=… /usr/local/lib/NAME`: librdkafka, whichever librdkafka.so.1 ldd finds here); and every
library package the runtime stage installs, and every library it copies, must be needed.
"""

import os
import re
import subprocess
import sys


def owner(path):
    """The Debian package that owns `path` (trying the /usr-merged and unmerged spellings), or None."""
    real = os.path.realpath(path)
    candidates = [path, real]
    for candidate in list(candidates):
        if candidate.startswith("/usr/"):
            candidates.append(candidate[4:])
        else:
            candidates.append("/usr" + candidate)
    for candidate in candidates:
        result = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True)
        if result.returncode == 0:
            return result.stdout.split(":")[0].strip()
    return None


def field(package, name):
    result = subprocess.run(["dpkg-query", "-W", "-f", "${" + name + "}", package], capture_output=True, text=True)
    return result.stdout if result.returncode == 0 else ""


def dependency_closure(packages):
    seen, pending = set(), list(packages)
    while pending:
        package = pending.pop()
        if package in seen:
            continue
        seen.add(package)
        for alternative in field(package, "Pre-Depends").split(",") + field(package, "Depends").split(","):
            for name in alternative.split("|"):
                name = re.sub(r"\(.*?\)|:any", "", name).strip()
                if name:
                    pending.append(name)
    return seen


def runtime_packages(dockerfile):
    """The packages the last stage's `apt-get install` installs."""
    text = open(dockerfile).read().replace("\\\n", " ")
    last_stage = text[text.rindex("\nFROM "):]
    packages = []
    for match in re.finditer(r"apt-get install ([^&]*)", last_stage):
        packages += [word for word in match.group(1).split() if not word.startswith("-")]
    return packages


def copied_libraries(dockerfile):
    """The file names of the libraries the last stage copies from another stage into a library folder."""
    text = open(dockerfile).read()
    last_stage = text[text.rindex("\nFROM "):]
    return {match.group(1) for match in re.finditer(r"^COPY --from=\S+ \S+ /usr/(?:local/)?lib/\S*?([^/\s]+)$",
                                                     last_stage, re.MULTILINE)}


def main():
    dockerfile, binary = sys.argv[1], sys.argv[2]
    output = subprocess.run(["ldd", binary], capture_output=True, text=True, check=True).stdout
    paths = [line.split("=>")[1].split("(")[0].strip() for line in output.splitlines() if "=>" in line]
    copied = copied_libraries(dockerfile)
    loaded = {os.path.basename(path) for path in paths}
    needed = {path: owner(path) for path in paths if path and path != "not found" and os.path.basename(path) not in copied}
    installed = runtime_packages(dockerfile)
    available = dependency_closure(installed)
    required = {line.split()[0] for line in subprocess.run(
        ["dpkg-query", "-W", "-f", "${Package} ${Priority}\n"], capture_output=True, text=True).stdout.splitlines()
        if line.endswith(" required")}
    available |= dependency_closure(required)
    failures = []
    # Without these the checks below would pass on nothing (a Dockerfile parsed wrong, a binary ldd cannot read).
    if not installed:
        failures.append(f"no `apt-get install` found in the runtime stage of {dockerfile}")
    if not needed:
        failures.append(f"ldd listed no shared library of {binary}")
    if any(line.strip().endswith("not found") for line in output.splitlines()):
        failures.append("ldd: a library is not found")
    for path, package in sorted(needed.items()):
        if package is not None and package not in available:
            failures.append(f"{path} ({package}) is not installed by the runtime stage of {dockerfile}")
    used = {package for package in needed.values() if package}
    for package in installed:
        if package.startswith("lib") and package not in used:
            failures.append(f"the runtime stage installs {package}, which the binary does not load")
    for name in sorted(copied - loaded):
        failures.append(f"the runtime stage copies {name}, which the binary does not load")
    for failure in failures:
        print(failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
