"""The Swift runtime's work per record: its concurrency entry points' calls in the worker and the heap objects it makes,
counted by uprobes, by thread kind, and the functions whose `await` hops (`swift_task_switch`'s resume function and
target executor).

Unlike CPU time, these counts hardly depend on the machine's speed: a change of the worker's tasks, actors and
continuations shows in them within about ±3 % (what moves is timing: a permit or an answer ready before its task
waits for it spares a suspension), where pushes/s and CPU per push move by 10–40 % between runs on a shared host.

Input: `perf script -F comm,tid,event,trace` output of a `perf record` of the probes in `PROBES`
(bench_runtime_probes.py creates them), one line per call, e.g.

    oot.default-qos  4713 pushbench_4242:task_switch: (7f2ba97f2ec0) resume=0x55802f604520 executor=0x0

A resume function is named through the worker's memory map (`/proc/PID/maps`) and its symbols (`nm -n`).
"""

from __future__ import annotations

import bisect
import re
import statistics
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from bench_stages import OTHER_THREADS, THREAD_KINDS, thread_kind


CONCURRENCY_LIBRARY = "libswift_Concurrency.so"
CORE_LIBRARY = "libswiftCore.so"


@dataclass(frozen=True)
class Probe:
    """A uprobe on one of the runtime's functions: its event name, the function, the arguments it records, and the
    runtime library that defines it."""

    event: str
    function: str
    arguments: str = ""
    library: str = CONCURRENCY_LIBRARY

    def definition(self, group: str) -> str:
        """The probe as `perf probe -a` takes it."""
        return f"{group}:{self.event}={self.function} {self.arguments}".rstrip()


TASK_SWITCH = "task_switch"
PROBES = (
    Probe("job_run", "swift_job_run"),
    # swift_task_switch(resumeFunction, executor identity, executor implementation), the async context in r14: the
    # function the task resumes in after the hop, and the executor it hops to (0: the generic executor, the pool).
    Probe(TASK_SWITCH, "swift_task_switch", "resume=%di:x64 executor=%si:x64"),
    Probe("task_create", "swift_task_create"),
    Probe("enqueue_global", "swift_task_enqueueGlobal"),
    Probe("continuation_resume", "swift_continuation_resume"),
    Probe("continuation_throwing_resume", "swift_continuation_throwingResume"),
    # Every heap object the worker's Swift code makes: class instances, closure contexts, boxes, and the storage of
    # arrays, strings, dictionaries and sets (a task's own memory comes from its allocator, not from here).
    Probe("alloc_object", "swift_allocObject", library=CORE_LIBRARY),
)
# Reference counting, counted on request (`bench.py --runtime-events-refcounts`): about 2,000 calls a one-device
# record, some 40 times the others' together, so their recording is as much larger.
REFCOUNT_PROBES = (
    Probe("retain", "swift_retain", library=CORE_LIBRARY),
    Probe("bridge_retain", "swift_bridgeObjectRetain", library=CORE_LIBRARY),
    Probe("release", "swift_release", library=CORE_LIBRARY),
    Probe("bridge_release", "swift_bridgeObjectRelease", library=CORE_LIBRARY),
)
# The figures printed, each the sum of some probes' calls, in this order.
FIGURES = (
    ("job runs", ("job_run",)),
    ("task switches", (TASK_SWITCH,)),
    ("tasks created", ("task_create",)),
    ("enqueues", ("enqueue_global",)),
    ("continuation resumes", ("continuation_resume", "continuation_throwing_resume")),
    ("heap objects", ("alloc_object",)),
)
REFCOUNT_FIGURES = (
    ("retains", ("retain", "bridge_retain")),
    ("releases", ("release", "bridge_release")),
)
KIND_ORDER = tuple(kind for kind, _ in THREAD_KINDS) + (OTHER_THREADS,)

LINE = re.compile(r"^\s*(?P<comm>.*\S)\s+(?P<tid>\d+)\s+(?P<group>\w+):(?P<event>\w+):\s*(?P<trace>.*)$")
ARGUMENT = re.compile(r"(\w+)=0x([0-9a-f]+)")


@dataclass
class RuntimeEventCounts:
    """Calls per probe and thread kind, and task switches per resume function and target (generic executor or
    not)."""

    calls: Counter = field(default_factory=Counter)
    switches: Counter = field(default_factory=Counter)
    # Lines that were not a probe's call (perf's warnings, a format this parser does not know).
    unread: int = 0

    def add(self, line: str) -> None:
        """Counts one line of `perf script -F comm,tid,event,trace` output."""
        match = LINE.match(line)
        if not match:
            self.unread += bool(line.strip())
            return
        self.calls[match["event"], thread_kind(match["comm"])] += 1
        if match["event"] == TASK_SWITCH:
            arguments = {name: int(value, 16) for name, value in ARGUMENT.findall(match["trace"])}
            if "resume" in arguments:
                self.switches[arguments["resume"], arguments.get("executor", 0) == 0] += 1

    def read(self, lines: Iterable[str]) -> "RuntimeEventCounts":
        """Counts every line of `lines` (a stream: nothing is kept but the counts)."""
        for line in lines:
            self.add(line)
        return self

    def figure(self, events: tuple[str, ...]) -> Counter:
        """Calls of `events` by thread kind."""
        kinds: Counter = Counter()
        for (event, kind), count in self.calls.items():
            if event in events:
                kinds[kind] += count
        return kinds


@dataclass(frozen=True)
class Mapping:
    """One line of `/proc/PID/maps`: an address range of a file, mapped from `offset` in it."""

    start: int
    end: int
    offset: int
    path: str

    @staticmethod
    def parse(maps: str) -> list["Mapping"]:
        mappings = []
        for line in maps.splitlines():
            fields = line.split(maxsplit=5)
            if len(fields) < 6 or not fields[5].startswith("/"):
                continue
            start, end = (int(value, 16) for value in fields[0].split("-"))
            mappings.append(Mapping(start, end, int(fields[2], 16), fields[5].strip()))
        return mappings


class Symbols:
    """Names the code addresses of a running process by the symbols of the files it maps (`nm -n` output of each,
    from `nm(path)`; each file's first segment at address 0, as in the worker and the shared libraries), or by the
    file's name where its symbols do not cover the address."""

    def __init__(self, maps: str, nm: Callable[[str], str]):
        self.mappings = Mapping.parse(maps)
        self.nm = nm
        self.bases = {}
        for mapping in self.mappings:
            if mapping.offset == 0:
                self.bases[mapping.path] = min(mapping.start, self.bases.get(mapping.path, mapping.start))
        self.files: dict[str, tuple[list[int], list[str]]] = {}

    def symbols(self, path: str) -> tuple[list[int], list[str]]:
        """The code symbols of `path`, read once: their addresses, ascending, and their names."""
        if path not in self.files:
            symbols = []
            for line in self.nm(path).splitlines():
                fields = line.split()
                if len(fields) == 3 and fields[1] in "tTwW":
                    symbols.append((int(fields[0], 16), fields[2]))
            symbols.sort()
            self.files[path] = ([address for address, _ in symbols], [name for _, name in symbols])
        return self.files[path]

    def name(self, address: int) -> str:
        """The symbol `address` is in (mangled, as `nm` prints it), or `[FILE]`, or its hexadecimal value where no
        file maps it."""
        mapping = next((mapping for mapping in self.mappings if mapping.start <= address < mapping.end), None)
        if mapping is None:
            return f"{address:#x}"
        addresses, names = self.symbols(mapping.path)
        index = bisect.bisect_right(addresses, address - self.bases.get(mapping.path, 0)) - 1
        return names[index] if index >= 0 else f"[{Path(mapping.path).name}]"


PARTIAL_FUNCTION = re.compile(r"^\(\d+\) (await|suspend) resume partial function for ")


def short_name(full: str, simplified: str) -> str:
    """A resume function's name from `swift demangle`'s `full` and `--simplified` forms: the simplified one, which
    leaves the types out, after the full one's `(N) await resume partial function for ` (the simplified form drops
    it, so that a function's suspension points would all read alike)."""
    match = PARTIAL_FUNCTION.match(full)
    if not match or simplified.startswith(match[0]):
        return simplified
    return match[0] + simplified


def per_unit(count: float, units: int) -> str:
    return f"{count / max(1, units):.2f}"


def figures(counts: RuntimeEventCounts, units: int, shown=FIGURES) -> str:
    """Every figure per unit (record or send), with its split by thread kind where more than one kind calls it:
    `job runs 9.00, …, enqueues 8.80 (Swift pool 6.20, HTTP/2 loop 1.80, other threads 1.00), …`."""
    parts = []
    for name, events in shown:
        kinds = counts.figure(events)
        # Kinds that round to 0.00 (a thread's calls at start-up) are left out.
        shown = [kind for kind in KIND_ORDER if float(per_unit(kinds[kind], units))]
        text = f"{name} {per_unit(sum(kinds.values()), units)}"
        if len(shown) > 1:
            text += " (" + ", ".join(f"{kind} {per_unit(kinds[kind], units)}" for kind in shown) + ")"
        parts.append(text)
    return ", ".join(parts)


def per_record(counts: RuntimeEventCounts, records: int, shown=FIGURES) -> dict[str, float]:
    """Every figure per record, by name, in the order printed."""
    return {name: sum(counts.figure(events).values()) / max(1, records) for name, events in shown}


def ratios(runs_b: list[dict[str, float]], runs_a: list[dict[str, float]]) -> str:
    """Each figure's median per record over `runs_b` relative to its median over `runs_a` (`per_record`'s
    dictionaries): `runtime events per record: job runs 0.950×, …`."""
    parts = []
    for name in runs_a[0]:
        a = statistics.median(run[name] for run in runs_a)
        b = statistics.median(run[name] for run in runs_b)
        parts.append(f"{name} {b / a:.3f}×" if a else f"{name} {b:.2f} (none before)")
    return "runtime events per record: " + ", ".join(parts)


def switch_targets(counts: RuntimeEventCounts, records: int) -> str:
    """Task switches per record by their target: `task switches per record by target: the generic executor 80.10, an
    actor 8.30`."""
    generic = sum(count for (_, to_generic), count in counts.switches.items() if to_generic)
    actor = sum(counts.switches.values()) - generic
    return (f"task switches per record by target: the generic executor {per_unit(generic, records)}, an actor "
            f"{per_unit(actor, records)}")


def top_hops(counts: RuntimeEventCounts, symbols: Symbols, demangle: Callable[[list[str]], list[str]],
             records: int, top: int) -> list[str]:
    """The `top` resume functions of task switches, per record, each with its target: `3.00 to the generic executor:
    (1) await resume partial function for RecordProcessor.settle()`. Functions of one name (several addresses, as
    in the runtime's libraries) count together."""
    by_name: Counter = Counter()
    for (address, generic), count in counts.switches.items():
        by_name[symbols.name(address), generic] += count
    ranked = by_name.most_common(top)
    names = demangle([name for (name, _), _ in ranked])
    return [f"{per_unit(count, records)} to {'the generic executor' if generic else 'an actor'}: {name}"
            for ((_, generic), count), name in zip(ranked, names)]


def per_record_and_send(counts: RuntimeEventCounts, records: int, sends: int, shown=FIGURES) -> str:
    """The figures per record and per send on one line (`shown`: which, by default `FIGURES`)."""
    return (f"runtime events per record: {figures(counts, records, shown)}; per send: "
            f"{figures(counts, sends, shown)}")
