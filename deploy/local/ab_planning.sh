#!/usr/bin/env bash
# A/B of planning alone (the PlanningBenchmark executable: the worker's planner stack over the benchmark's events, one
# thread, no I/O, CPU time per event) for two revisions, in one sitting: each revision is built in release mode from a
# clean export of its commit (cached by its sources in $PUSH_AB_DIR, default /tmp/push-ab; `.` is this checkout as it
# is), with this checkout's Tests/PlanningBenchmark/main.swift, so that revisions from before the harness are measured
# by the same one; then the two run alternately (A B, B A, …) over three cases: stream events, fan-out events and IMKIT
# messages (resolved through a directory of clients), and the medians per revision and B / A are printed. Steadier
# than an end-to-end A/B on a shared machine: one thread, no other process.
# With --instructions, each revision instead runs one pass of each case under valgrind's callgrind, counting the
# instructions of planning alone (the harness's planningPass): the same count in every run, however busy the machine.
#
#   bash deploy/local/ab_planning.sh [--instructions] REV_A REV_B [ROUNDS (default 5)] [FAN-OUT RECIPIENTS (default 500)]
set -euo pipefail
cd "$(dirname "$0")/../.."
instructions=false
arguments=()
for argument in "$@"; do
    if [[ $argument == --instructions ]]; then instructions=true; else arguments+=("$argument"); fi
done
set -- "${arguments[@]}"
if [[ $# -lt 2 || $1 == -* || $2 == -* ]]; then
    echo "usage: bash deploy/local/ab_planning.sh [--instructions] REV_A REV_B [ROUNDS] [FAN-OUT RECIPIENTS]" >&2
    exit 2
fi
rev_a=$1 rev_b=$2 rounds=${3:-5} recipients=${4:-500}
harness=$PWD/Tests/PlanningBenchmark/main.swift
if $instructions; then bash deploy/local/setup.sh valgrind; else bash deploy/local/setup.sh; fi
# shellcheck source=revision_build.sh
source deploy/local/revision_build.sh
# PlanningBenchmark is a target of the integration layer.
export PUSH_WORKER_INTEGRATION=1

# In an exported revision: this checkout's harness, and its target where the revision has none.
add_harness() {
    mkdir -p Tests/PlanningBenchmark
    cp "$harness" Tests/PlanningBenchmark/main.swift
    grep -q '"PlanningBenchmark"' Package.swift && return
    python3 - Package.swift <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
at = text.index("    targets: [") + len("    targets: [")
target = ('\n        .executableTarget(name: "PlanningBenchmark", dependencies: ["PushCore", "PushPipeline"], '
          'path: "Tests/PlanningBenchmark"),')
open(path, "w").write(text[:at] + target + text[at:])
PY
}

# The cases, each the harness's arguments: stream events, fan-out events, IMKIT messages to 1–3 clients.
cases=("0" "$recipients" "imkit 0")

case_label() {
    case $1 in
        0) echo "stream" ;;
        "imkit 0") echo "IMKIT messages (1-3 clients)" ;;
        *) echo "fan-out ($1 recipients)" ;;
    esac
}

# The µs per event of one run of binary $1 on case $2.
measure() {
    # shellcheck disable=SC2086 # a case is the harness's arguments
    "$1" $2 | sed -E 's/.*: ([0-9.]+) µs per event.*/\1/'
}

# The instructions of planning alone per event in one pass (callgrind counts only inside planningPass).
count_instructions() {
    local events collected
    events=$([[ ${2##* } == 0 ]] && echo 20000 || echo 100)
    # shellcheck disable=SC2086 # a case is the harness's arguments
    collected=$(PLANNING_BENCHMARK_PASSES=1 valgrind --tool=callgrind --toggle-collect='*planningPass*' \
        --callgrind-out-file=/dev/null "$1" $2 2>&1 | sed -nE 's/.*Collected : ([0-9]+).*/\1/p')
    echo $((collected / events))
}

# Both revisions' instructions per event in each case, counted side by side (a count does not depend on the load).
compare_instructions() {
    local case_recipients label a b
    for case_recipients in "${cases[@]}"; do
        label=$(case_label "$case_recipients")
        count_instructions "$bin_a" "$case_recipients" > "$work/a" &
        count_instructions "$bin_b" "$case_recipients" > "$work/b"
        wait
        a=$(<"$work/a") b=$(<"$work/b")
        python3 -c 'import sys; l, ra, rb, a, b = sys.argv[1:]; print(f"{l}: A {ra} {int(a):,} instructions per event; '\
'B {rb} {int(b):,}; B / A {int(b) / int(a):.3f}")' "$label" "$rev_a" "$rev_b" "$a" "$b"
    done
}

# In a function, so bash has read the whole script before it runs: editing it during a run is harmless.
main() {
    local bin_a bin_b
    build_revisions "$rev_a" "$rev_b" PlanningBenchmark add_harness "$harness"
    if $instructions; then
        work=$(mktemp -d)
        trap 'rm -rf "$work"' EXIT
        compare_instructions
        return
    fi
    local case_recipients label
    for case_recipients in "${cases[@]}"; do
        label=$(case_label "$case_recipients")
        local a=() b=()
        for ((round = 1; round <= rounds; round++)); do
            if ((round % 2)); then
                a+=("$(measure "$bin_a" "$case_recipients")")
                b+=("$(measure "$bin_b" "$case_recipients")")
            else
                b+=("$(measure "$bin_b" "$case_recipients")")
                a+=("$(measure "$bin_a" "$case_recipients")")
            fi
        done
        python3 - "$label" "$rev_a" "$rev_b" "${a[*]}" "${b[*]}" <<'PY'
import statistics, sys
label, rev_a, rev_b, a, b = sys.argv[1:]
a, b = [float(x) for x in a.split()], [float(x) for x in b.split()]
ma, mb = statistics.median(a), statistics.median(b)
print(f"{label}: A {rev_a} {ma:.2f} µs per event (runs {', '.join(f'{x:.2f}' for x in a)}); "
      f"B {rev_b} {mb:.2f} (runs {', '.join(f'{x:.2f}' for x in b)}); B / A {mb / ma:.3f}")
PY
    done
}
main
