"""Where the worker's CPU goes: its threads' CPU by kind (/proc/PID/task) and a perf profile's samples by stage.

Threads are told apart by their names (`comm`): the Swift cooperative pool (dispatch's `com.apple.root.default-qos`
threads, whose name the kernel keeps as `oot.default-qos`), the HTTP/2 transport's event loop (`http2-curl`,
`http2-nghttp2`), librdkafka's threads (`rdk:main`, `rdk:broker…`) and the rest.

A sample's stage is read from its call chain (`perf script` output, symbols demangled by `swift demangle`): the
first frame in user space that is not the C library decides whether the sample is runtime work (retain/release,
task switching, malloc, metadata); otherwise the first frame from the leaf up that names a stage's code decides;
a sample with none counts by its thread (the transport's loop: send/transport). A sample on one of librdkafka's
threads counts as theirs, whatever its frames.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

CLOCK_TICKS = 100

# Thread kinds by name, in the order they are printed; the first whose pattern matches the thread's name wins.
THREAD_KINDS = (
    ("Swift pool", re.compile(r"default-qos$|cooperative")),
    ("HTTP/2 loop", re.compile(r"^http2-(curl|nghttp2)$")),
    ("librdkafka", re.compile(r"^rdk:")),
)
OTHER_THREADS = "other threads"
# CPU of threads that ended before the case did: the process's time less its live threads'.
ENDED_THREADS = "ended threads"

# Runtime work, told by the first user-space frame that is not the C library.
RUNTIME = (
    ("runtime: retain/release", re.compile(r"^swift_(\w*[Rr]etain|\w*[Rr]elease)")),
    ("runtime: malloc", re.compile(
        r"^(malloc|free|calloc|realloc|posix_memalign|aligned_alloc|sdallocx|je_|_rjem_|"
        r"swift_slowAlloc|swift_slowDealloc|swift_allocObject|swift_dealloc\w*)")),
    ("runtime: metadata", re.compile(
        r"^(swift_(get\w*Metadata|conformsToProtocol|dynamicCast|checkMetadataState|getAssociated\w*|"
        r"instantiate\w*|getWitnessTable)|swift::Metadata|__swift_instantiateConcreteTypeFromMangledName)")),
    ("runtime: task switching", re.compile(
        r"^(swift_task_|swift_job_|swift_continuation_|swift_taskGroup|swift_asyncLet|swift::|"
        r"\(anonymous namespace\)::|_dispatch_|dispatch_)")),
)
RUNTIME_LIBRARIES = (("runtime: malloc", "libjemalloc"),)

# Stages, told by the first frame from the leaf up that matches one of their patterns (a frame matching several
# takes the first stage in this order). Shared building blocks (SHA-256, the JSON writer) name no stage: their
# caller does.
STAGES = (
    ("decode", (
        r"\bPushCore\.(EventDecoder|JSONParser|JSONTape|JSONValue|IMKITMessageDecoder|CustomPushDecoder|EventLimits|"
        r"RegistryRecordDecoder|EventTime|TokenSyntax|Fields|ObjectFields|StringWord|MemberKey)\b",
        r"\bPushPipeline\.RecordScan\b",
    )),
    ("render", (
        r"\bPushCore\.(PushRenderer|Template|LocalizedTemplate|AppStrings|AppStringsFormat|FallbackTexts|RenderedPush|"
        r"SizeFitting|APNsRequestBuilder|FCMRequestBuilder|WebPushRequestBuilder|CustomPushRequestBuilder|"
        r"CustomPushSmallestRequest|GraphemeTruncation|DeterministicUUID|ProviderRequest)\b",
    )),
    ("plan", (
        r"\bPushCore\.",
        r"\bPushPipeline\.(CorePlanner|IMKITPlanner|CustomPushPlanner|SkippingKnownInvalidTokens|PreparedPlan|"
        r"KnownInvalidTokens|InvalidTokenTable)\b",
        r"\bDeviceRegistry\.",
    )),
    ("send/transport", (
        r"\bHTTP2\.", r"\bProviders\.", r"\bSigning\.", r"\bHTTPTypes\.",
        r"\bPushPipeline\.(DeviceDelivery|ProviderBreakers?)\b", r"\bWorker\.ProviderSender\b",
        r"^(nghttp2_|curl_|Curl_|SSL_|ssl3?_|tls1?3?_|ossl_|EVP_|BIO_|aesni_|gcm_)",
    )),
    ("receipts/produce", (
        r"\bPushPipeline\.(RecordOutputs|Receipt|ReceiptID|FailureHeaders|FailureHistory|CarriedHeaders|OutputRecord|"
        r"OutputLimits|TraceParent|ReplayRunID)\b",
        r"\bPushPipeline\.RecordProcessor\.produceUntilAcknowledged\b",
        r"\bWorker\.(KafkaRecordSink|UnsubscribingDeadTokens)\b",
        r"\bKafka\.(KafkaProducer|ProducerPoller|ProducerContext|DeliveryReports|DeliveryCompletion|"
        r"KafkaProducerRecord)\b",
    )),
    ("admission/ordering", (
        r"^PushPipeline\.PipelineCore\.\((admit|start|freeRoom|releaseDueRecords|dropQueued|noteTheInFlightLimit) in ",
        r"^PushPipeline\.Pipeline\.\(perform in ", r"\bEssentials\.(AsyncLimiter|AsyncBudget|ConcurrentLanes)\b",
    )),
    ("poll", (
        r"\bWorker\.KafkaRecordSource\b", r"\bKafka\.(KafkaConsumer|KafkaRecord|ConsumerContext)\b",
        r"^rd_kafka_(consume|consumer_poll|fetch|msgset_reader)",
    )),
    ("commit/Kafka", (
        r"\bKafka\.", r"\bKafkaTypes\.", r"\bPushPipeline\.(OffsetTracker|PipelineCore)\b", r"^rd_kafka",
    )),
    ("pipeline", (
        r"\bPushPipeline\.", r"\bPipelineMetrics\.", r"\bObservability\.",
    )),
)
STAGE_LIBRARIES = (
    ("send/transport", ("libssl", "libcrypto", "libnghttp2", "libcurl")),
    ("commit/Kafka", ("librdkafka",)),
)
# A sample no frame of which names a stage counts by its thread's kind.
THREAD_STAGES = {"HTTP/2 loop": "send/transport"}
# Every sample on librdkafka's own threads (the broker threads' fetch, produce and commit requests, its main thread),
# whatever its frames: they serve polls, receipts and commits alike.
LIBRDKAFKA_THREADS = "librdkafka threads"
OTHER = "other"
# Every stage, in the order they are printed.
ORDER = (tuple(name for name, _ in STAGES) + (LIBRDKAFKA_THREADS,) + tuple(name for name, _ in RUNTIME)
         + (OTHER,))

COMPILED_STAGES = tuple((name, tuple(re.compile(pattern) for pattern in patterns)) for name, patterns in STAGES)
SPECIALIZATION = re.compile(r"^(generic |function signature |merged )*specialization <")


@dataclass(frozen=True)
class Frame:
    """One frame of a sample's call chain: its symbol (demangled) and the file it is in."""

    symbol: str
    library: str

    @property
    def is_kernel(self) -> bool:
        return self.library.startswith("[kernel")

    @property
    def is_libc(self) -> bool:
        return Path(self.library).name.startswith(("libc.so", "libc-", "libpthread", "ld-linux"))


def thread_kind(name: str) -> str:
    """The kind of the thread named `name` (its `comm`)."""
    for kind, pattern in THREAD_KINDS:
        if pattern.search(name):
            return kind
    return OTHER_THREADS


def function_name(symbol: str) -> str:
    """`symbol` without a specialization's prefix (`generic specialization <…> of F` → `F`), so that a type named
    among the specialization's arguments does not decide the stage."""
    if not SPECIALIZATION.match(symbol):
        return symbol
    depth = 0
    for index, character in enumerate(symbol):
        if character == "<":
            depth += 1
        elif character == ">":
            depth -= 1
            if depth == 0 and symbol.startswith(" of ", index + 1):
                return symbol[index + 5:]
    return symbol


def stage(frames: list[Frame], thread: str) -> str:
    """The stage of a sample whose call chain is `frames` (leaf first), taken on the thread named `thread`."""
    if thread_kind(thread) == "librdkafka":
        return LIBRDKAFKA_THREADS
    leaf = next((frame for frame in frames if not frame.is_kernel and not frame.is_libc), None)
    if leaf is not None:
        for name, pattern in RUNTIME:
            if pattern.search(leaf.symbol):
                return name
        for name, library in RUNTIME_LIBRARIES:
            if library in leaf.library:
                return name
    for frame in frames:
        if frame.is_kernel:
            continue
        symbol = function_name(frame.symbol)
        for name, patterns in COMPILED_STAGES:
            if any(pattern.search(symbol) for pattern in patterns):
                return name
        for name, libraries in STAGE_LIBRARIES:
            if any(library in Path(frame.library).name for library in libraries):
                return name
    return THREAD_STAGES.get(thread_kind(thread), OTHER)


def samples(script: str) -> list[tuple[str, list[Frame]]]:
    """The samples of `perf script -F comm,tid,ip,sym,dso` output: each its thread's name and its call chain, leaf
    first."""
    parsed: list[tuple[str, list[Frame]]] = []
    for line in script.splitlines():
        if not line.strip():
            continue
        if not line[0].isspace():
            name, _, _ = line.strip().rpartition(" ")
            parsed.append((name.strip() or line.strip(), []))
            continue
        if not parsed:
            continue
        parts = line.strip().split(" ", 1)
        rest = parts[1] if len(parts) > 1 else "[unknown]"
        library = ""
        if rest.endswith(")") and " (" in rest:
            rest, _, library = rest[:-1].rpartition(" (")
        parsed[-1][1].append(Frame(re.sub(r"\+0x[0-9a-f]+$", "", rest.strip()), library))
    return parsed


def stage_split(script: str) -> Counter:
    """Samples per stage in `perf script` output."""
    return Counter(stage(frames, thread) for thread, frames in samples(script))


def thread_times(pid: int) -> dict[int, tuple[str, float]]:
    """Each live thread of `pid`: its name and its user plus system CPU seconds so far."""
    times = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            name = (task / "comm").read_text().strip()
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        times[int(task.name)] = (name, (int(fields[11]) + int(fields[12])) / CLOCK_TICKS)
    return times


class ThreadSampler:
    """Reads `thread_times(pid)` every `interval` seconds on a thread of its own and keeps each thread's latest
    reading, so that a thread that ends before the case does (an idle pool thread) still counts by its kind."""

    def __init__(self, pid: int, interval: float = 0.5):
        self.pid = pid
        self.latest: dict[int, tuple[str, float]] = {}
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self.run, args=(interval,), name="thread-sampler", daemon=True)
        self.thread.start()

    def run(self, interval: float) -> None:
        while not self.stopped.is_set():
            self.read()
            self.stopped.wait(interval)

    def read(self) -> None:
        try:
            self.latest.update(thread_times(self.pid))
        except OSError:
            self.stopped.set()

    def stop(self) -> dict[int, tuple[str, float]]:
        """Stops sampling after one last reading; every thread seen, with its latest reading."""
        self.stopped.set()
        self.thread.join(timeout=5)
        self.read()
        return dict(self.latest)


def cpu_by_kind(before: dict[int, tuple[str, float]], after: dict[int, tuple[str, float]],
                process_seconds: float) -> dict[str, float]:
    """CPU seconds per thread kind between two readings of `thread_times` (or `ThreadSampler.stop`; a thread new
    since `before` counts from its start), and, as `ended threads`, what `process_seconds`, the process's CPU over
    the same span, has beyond them (threads that ended unseen)."""
    kinds: dict[str, float] = {kind: 0.0 for kind, _ in THREAD_KINDS}
    kinds[OTHER_THREADS] = 0.0
    for tid, (name, seconds) in after.items():
        kinds[thread_kind(name)] += seconds - before.get(tid, (name, 0.0))[1]
    ended = process_seconds - sum(kinds.values())
    if ended > 0.005:
        kinds[ENDED_THREADS] = ended
    return kinds
