#!/usr/bin/env bash
# Installs what the tests need, checks the format (swift format lint --strict, .swift-format), then builds and runs
# every test: the unit layer (`swift test` alone), in a network namespace of its own when the machine allows one
# (no network there, not even loopback: a unit test that opens a connection fails), then the integration layer (the
# targets Package.swift adds when PUSH_WORKER_INTEGRATION=1) in processes of its own, the unit targets skipped there:
# first everything but the consumer-group suites, a few tests at a time, then those suites one test at a time. Each
# on librdkafka 2.16 and on 2.0.2; the group suites, replay and the registry's also on Tansu, a real broker, where
# ScaleOutInTests prints a plain consumer's figures beside the worker's.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash deploy/local/setup.sh
export PATH="$PWD/.venv/bin:$PATH"
# shellcheck source=librdkafka.sh
source deploy/local/librdkafka.sh
swift format lint --strict -r Sources Tests Package.swift
unset PUSH_WORKER_INTEGRATION
swift build --build-tests
isolated=()
if unshare -rn true 2>/dev/null; then
    isolated=(unshare -rn)
else
    echo "test.sh: no network namespace here (unshare -rn); the unit layer runs with the network" >&2
fi
# Every layer runs on both librdkafkas (deploy/local/librdkafka.sh): the current one (the confluent-kafka wheel's 2.16)
# and Debian's 2.0.2, which the binary is built against, so that a behaviour that differs between them shows up.
on_librdkafka() {
    local choice=$1
    shift
    echo "test.sh: on librdkafka '$choice': $*" >&2
    (PUSH_LIBRDKAFKA=$choice && source deploy/local/librdkafka.sh && "$@")
}
# A crashed process's backtrace (Swift's runtime prints one on Linux): the crashed thread only, without registers and
# the list of loaded images, so that the summary can show it whole.
export SWIFT_BACKTRACE=enable=yes,interactive=no,threads=crashed,registers=none,images=none
status=0
# Each part's output is also kept, so that the summary at the end names what failed, even when a log is cut to its tail.
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
parts=()
part() {
    local name=$1 rc=0
    shift
    "$@" 2>&1 | tee "$logs/${#parts[@]}.log" || rc=$?
    parts+=("$name|$rc")
    [ "$rc" -eq 0 ] || status=$rc
}
# The tests a log shows started and never ended: when a part dies on a signal, the one that killed it is among them.
unfinished() {
    awk '
        /^◇ Test .* started\.$/ && !/^◇ Test run started\.$/ {
            name = $0; sub(/^◇ Test /, "", name); sub(/ started\.$/, "", name); open[name]++
        }
        /^(✔|✘) Test .* (passed|failed) after / {
            name = $0; sub(/^(✔|✘) Test /, "", name); sub(/ (passed|failed) after .*/, "", name); open[name]--
        }
        END { for (name in open) if (open[name] > 0) print "test.sh: started, never ended: " name }
    ' "$1"
}
summary() {
    local i name rc
    echo "test.sh: what each part ended with (exit $status)"
    for i in "${!parts[@]}"; do
        name=${parts[$i]%|*}
        rc=${parts[$i]##*|}
        echo "test.sh: $name: exit $rc"
        if [ "$rc" -ne 0 ]; then
            grep -aE '^✘ Test [^ ]+ (recorded an issue|failed)|^error: |Fatal error: |Fatal access conflict|Assertion .* failed' \
                "$logs/$i.log" | head -40 || true
            unfinished "$logs/$i.log"
            # A test process that died on a signal printed why (a failed C assertion, the allocator's or the Swift
            # runtime's complaint) just before the runtime's backtrace of the crashed thread.
            if grep -aq 'exited with unexpected signal code' "$logs/$i.log"; then
                crash=$(grep -anm1 -E '^\*\*\* (Signal [0-9]+:|Program crashed:)' "$logs/$i.log" | cut -d: -f1)
                echo "test.sh: the lines around the crash:"
                if [ -n "$crash" ]; then
                    sed -n "$((crash > 20 ? crash - 20 : 1)),$((crash + 30))p" "$logs/$i.log"
                else
                    tail -30 "$logs/$i.log"
                fi | sed 's/^/    /'
            fi
        fi
        grep -aE 'Test run with [0-9]+ tests?' "$logs/$i.log" | tail -1 || true
    done
}
part "unit, librdkafka current" on_librdkafka current "${isolated[@]}" swift test --skip-build
part "unit, librdkafka debian" on_librdkafka debian "${isolated[@]}" swift test --skip-build
unit_targets=$(swift package dump-package | python3 -c \
    'import json, sys; print("|".join(t["name"] for t in json.load(sys.stdin)["targets"] if t["type"] == "test"))')
# Suites whose workers share a consumer group, scale, restart or are killed: their rebalances are timing races on
# the mock cluster (docs/kafka.md), so they run alone, on a machine the other suites no longer load.
group_suites='ConsumerGroupTests|ScaleOutInTests|RollingRestartTests|WorkerCrashTests|CrashDuplicatesTests'
group_suites+='|ReceiptCopiesEndToEndTests'
group_suites+='|AssignedScopeTests|AssignedScopeDeadTokensTests'
# IngressSlowClientsTests holds 1,100 sockets open in the test process: Foundation's Process.run, spawning a child for
# another test meanwhile, crashed (SIGSEGV in memcpy) with that many descriptors open, so it runs alone too.
group_suites+='|IngressSlowClientsTests'
# The suites that also run on Tansu, a real broker (PUSH_TEST_BROKER=tansu; librdkafka 2.0.2 cannot reach it): the
# group suites, replay and the device registry's topics; a fault-injection test among them stays on the mock cluster.
tansu_suites='ConsumerGroupTests|ScaleOutInTests|RollingRestartTests|WorkerCrashTests|CrashDuplicatesTests'
tansu_suites+='|ReceiptCopiesEndToEndTests|ReplayEndToEndTests|DevicesCommandTests|WorkerIMKITTests'
tansu_suites+='|AssignedScopeTests|AssignedScopeDeadTokensTests'
export PUSH_WORKER_INTEGRATION=1
swift build --build-tests
for choice in current debian; do
    part "integration, librdkafka $choice" on_librdkafka "$choice" swift test --skip-build \
        --experimental-maximum-parallelization-width 6 --skip "^($unit_targets)\." --skip "\.($group_suites)/"
done
on_tansu() { (export PUSH_TEST_BROKER=tansu && on_librdkafka current "$@"); }
part "group, replay and registry suites on Tansu, librdkafka current" \
    on_tansu swift test --skip-build --no-parallel --filter "\.($tansu_suites)/"
part "group suites on the mock cluster, librdkafka debian" \
    on_librdkafka debian swift test --skip-build --no-parallel --filter "\.($group_suites)/"
summary
exit "$status"
