"""Checks push-worker's Kubernetes manifests for what the worker needs, beyond schema validity.

Usage: python check_manifests.py DIRECTORY   (exit 0 when every check holds; otherwise one line per failure)
Run by Tests/DeploymentTests with the .venv that deploy/local/setup.sh creates (PyYAML comes with
kubernetes-validate).
"""

import pathlib
import re
import sys

import yaml

# The worker's brokers, group, topics, rules file, provider URLs and credentials, CA file and status port
# (docs/configuration.md), plus its shutdown grace, its name in receipts and the log level.
REQUIRED_ENV = [
    "KAFKA_BOOTSTRAP_SERVERS", "KAFKA_GROUP_ID", "PUSH_TOPICS", "PUSH_RECEIPTS_TOPIC", "PUSH_DLQ_TOPIC",
    "PUSH_RETRY_TOPIC", "PUSH_RULES_FILE", "APNS_URL", "APNS_SANDBOX_URL", "APNS_KEY_FILE", "APNS_KEY_ID",
    "APNS_TEAM_ID", "APNS_TOPIC", "FCM_URL", "FCM_SERVICE_ACCOUNT_FILE", "PUSH_CA_FILE", "PUSH_HTTP_PORT",
    "PUSH_SHUTDOWN_GRACE_SECONDS", "PUSH_WORKER_ID", "LOG_LEVEL",
]
MINIMUM_MEMORY_LIMIT_MIB = 150
# Sizing (docs/operations.md, "Sizing"): the pipeline's resident ceiling, what the invalid-token table takes per
# million tokens, and the headroom on top; records per second one requested core sends, planned at 70 %, and the
# seconds of backlog one pod should own (KEDA's lagThreshold).
PIPELINE_MEMORY_MIB = 150
TABLE_MIB_PER_MILLION_TOKENS = 85
MEMORY_HEADROOM_MIB = 64
RECORDS_PER_CORE = 2000
PLANNED_UTILISATION = 0.7
BACKLOG_SECONDS = 10
REPOSITORY = pathlib.Path(__file__).resolve().parents[2]
# Seconds between the end of the worker's own grace period and SIGKILL: producer flush (10 s), consumer close with
# its commit and leaving the group (10 s), HTTP/2 clients and status server (10 s), and 5 s of margin.
MINIMUM_SHUTDOWN_MARGIN_SECONDS = 35
UNITS = {"Ki": 1 / 1024, "Mi": 1, "Gi": 1024, "K": 1000 / 1024**2, "M": 1000**2 / 1024**2, "G": 1000**3 / 1024**2}


def mebibytes(quantity):
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([KMG]i?)?", str(quantity))
    if not match:
        return None
    number, unit = match.groups()
    return float(number) * UNITS[unit] if unit else float(number) / 1024**2


def cores(quantity):
    text = str(quantity)
    return float(text[:-1]) / 1000 if text.endswith("m") else float(text)


def worker_reset_policy(env):
    """KAFKA_AUTO_OFFSET_RESET if the Deployment sets it, else the worker's default (KafkaConfiguration.swift)."""
    if "KAFKA_AUTO_OFFSET_RESET" in env:
        return env["KAFKA_AUTO_OFFSET_RESET"].get("value")
    source = (REPOSITORY / "Sources/Kafka/KafkaConfiguration.swift").read_text()
    match = re.search(r'"auto\.offset\.reset": "(\w+)"', source)
    return match.group(1) if match else None


def load(directory):
    documents = []
    for path in sorted(pathlib.Path(directory).glob("*.yaml")):
        for document in yaml.safe_load_all(path.read_text()):
            if document:
                documents.append((path.name, document))
    return documents


def check_probes(container, ports, port):
    """The liveness and readiness probes GET /healthz and /readyz on PUSH_HTTP_PORT (`port`, by number or name)."""
    failures = []
    for probe, path in [("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")]:
        http = container.get(probe, {}).get("httpGet", {})
        if http.get("path") != path:
            failures.append(f"Deployment: {probe} must GET {path}, not {http.get('path')}")
        if ports.get(http.get("port"), http.get("port")) != port:
            failures.append(f"Deployment: {probe} must use PUSH_HTTP_PORT {port}")
    return failures


def resources_by_kind(documents, kinds, failures):
    """The documents but the Kustomization, as (name, document) pairs, and grouped by kind; appends to `failures`
    what no folder of manifests may hold (a namespace, a Secret) and each of `kinds` not there exactly once."""
    resources = [(name, doc) for name, doc in documents if doc.get("kind") != "Kustomization"]
    by_kind = {}
    for name, doc in resources:
        by_kind.setdefault(doc.get("kind"), []).append(doc)
        if "namespace" in doc.get("metadata", {}):
            failures.append(f"{name}: sets metadata.namespace (the manifests are namespace-agnostic)")
        if doc.get("kind") == "Secret":
            failures.append(f"{name}: commits a Secret; secrets are created out of band")
    for kind in kinds:
        if len(by_kind.get(kind, [])) != 1:
            failures.append(f"expected one {kind}, found {len(by_kind.get(kind, []))}")
    return resources, by_kind

def check(directory):
    failures = []
    documents = load(directory)
    resources, by_kind = resources_by_kind(
        documents, ["ConfigMap", "Deployment", "PodDisruptionBudget", "ScaledObject", "NetworkPolicy", "PodMonitor",
                    "PrometheusRule"], failures)
    if failures:
        return failures

    kustomization = [doc for _, doc in documents if doc.get("kind") == "Kustomization"]
    listed = set(kustomization[0].get("resources", [])) if kustomization else set()
    for name, _ in resources:
        if kustomization and name not in listed:
            failures.append(f"kustomization.yaml: does not list {name}")

    deployment = by_kind["Deployment"][0]
    spec = deployment["spec"]
    pod = spec["template"]["spec"]
    pod_labels = spec["template"]["metadata"].get("labels", {})
    if spec["selector"].get("matchLabels", {}).items() - pod_labels.items():
        failures.append("Deployment: selector does not match the pod template's labels")
    containers = pod["containers"]
    container = containers[0]
    env = {entry["name"]: entry for entry in container.get("env", [])}
    for name in REQUIRED_ENV:
        if name not in env:
            failures.append(f"Deployment: env {name} missing")
    if failures:
        return failures

    if "replicas" in spec:
        failures.append("Deployment: sets replicas, which every apply would reset under the autoscaler")
    image = container.get("image", "")
    images = {entry.get("name"): entry for entry in (kustomization[0].get("images", []) if kustomization else [])}
    if ":" in image or "@" in image:
        failures.append(f"Deployment: image {image} carries a tag; kustomization.yaml's images: sets it")
    elif image not in images or images[image].get("newTag", "latest") == "latest":
        failures.append(f"kustomization.yaml: images: must set a tag (not latest) for {image}")
    if "run" not in container.get("args", []) + container.get("command", []):
        failures.append("Deployment: the container does not run `push-worker run`")

    port = int(env["PUSH_HTTP_PORT"]["value"])
    ports = {entry.get("name"): entry["containerPort"] for entry in container.get("ports", [])}
    if port not in ports.values():
        failures.append(f"Deployment: PUSH_HTTP_PORT {port} is not a container port")
    failures += check_probes(container, ports, port)

    monitor = by_kind["PodMonitor"][0]["spec"]
    if monitor.get("selector", {}).get("matchLabels", {}).items() - pod_labels.items() \
            or not monitor.get("selector", {}).get("matchLabels"):
        failures.append("PodMonitor: selector does not match the worker's pods")
    endpoints = monitor.get("podMetricsEndpoints", [])
    if not any(ports.get(e.get("port")) == port and e.get("path", "/metrics") == "/metrics" for e in endpoints):
        failures.append(f"PodMonitor: must scrape /metrics on the named port of PUSH_HTTP_PORT {port}")

    policy = by_kind["NetworkPolicy"][0]["spec"]
    if policy.get("podSelector", {}).get("matchLabels", {}).items() - pod_labels.items():
        failures.append("NetworkPolicy: podSelector does not match the worker's pods")
    ingress = policy.get("ingress", [])
    if "Ingress" not in policy.get("policyTypes", []) or not ingress:
        failures.append("NetworkPolicy: must restrict ingress")
    for rule in ingress:
        if not rule.get("from") or [p.get("port") for p in rule.get("ports", [])] not in ([port], ["http-status"]):
            failures.append(f"NetworkPolicy: every ingress rule must name its sources and only port {port}")

    for alert in [r for g in by_kind["PrometheusRule"][0]["spec"].get("groups", []) for r in g.get("rules", [])
                  if "record" not in r]:
        for field in ["alert", "expr"]:
            if not alert.get(field):
                failures.append(f"PrometheusRule: a rule without {field}")
        if not alert.get("annotations", {}).get("runbook_url") or not alert.get("labels", {}).get("severity"):
            failures.append(f"PrometheusRule: {alert.get('alert')} needs labels.severity and annotations.runbook_url")

    resources_spec = container.get("resources", {})
    for part in ["requests", "limits"]:
        for resource in ["cpu", "memory"]:
            if resource not in resources_spec.get(part, {}):
                failures.append(f"Deployment: resources.{part}.{resource} missing")
    limit = mebibytes(resources_spec.get("limits", {}).get("memory", "0"))
    if limit is None or limit < MINIMUM_MEMORY_LIMIT_MIB:
        failures.append(f"Deployment: memory limit must be at least {MINIMUM_MEMORY_LIMIT_MIB}Mi")

    grace = int(env["PUSH_SHUTDOWN_GRACE_SECONDS"]["value"])
    termination = pod.get("terminationGracePeriodSeconds", 30)
    if termination < grace + MINIMUM_SHUTDOWN_MARGIN_SECONDS:
        failures.append(
            f"Deployment: terminationGracePeriodSeconds {termination} must exceed the worker's grace {grace:g} s "
            f"by at least {MINIMUM_SHUTDOWN_MARGIN_SECONDS}")

    if pod.get("enableServiceLinks") is not False:
        failures.append("Deployment: enableServiceLinks must be false (service links inject KAFKA_PORT and the like)")

    security = pod.get("securityContext", {})
    if security.get("runAsNonRoot") is not True:
        failures.append("Deployment: pod securityContext.runAsNonRoot must be true")
    if container.get("securityContext", {}).get("allowPrivilegeEscalation") is not False:
        failures.append("Deployment: allowPrivilegeEscalation must be false")

    mounts = {mount["name"]: mount for mount in container.get("volumeMounts", [])}
    volumes = {volume["name"]: volume for volume in pod.get("volumes", [])}
    configmap = by_kind["ConfigMap"][0]

    def mounted_from(path):
        for name, mount in mounts.items():
            if path.startswith(mount["mountPath"].rstrip("/") + "/"):
                return name, mount, volumes.get(name, {})
        return None, None, {}

    name, mount, volume = mounted_from(env["PUSH_RULES_FILE"]["value"])
    if volume.get("configMap", {}).get("name") != configmap["metadata"]["name"]:
        failures.append("Deployment: PUSH_RULES_FILE is not in the rules ConfigMap's mount")
    elif "subPath" in mount:
        failures.append("Deployment: the rules ConfigMap is mounted with subPath, which never sees updates")
    elif pathlib.PurePath(env["PUSH_RULES_FILE"]["value"]).name not in configmap.get("data", {}):
        failures.append("Deployment: PUSH_RULES_FILE names a key the ConfigMap does not have")

    for variable in ["APNS_KEY_FILE", "FCM_SERVICE_ACCOUNT_FILE", "WEBPUSH_VAPID_KEY_FILE"]:
        name, mount, volume = mounted_from(env[variable]["value"])
        if "secret" not in volume:
            failures.append(f"Deployment: {variable} is not in a Secret volume")
        elif volume["secret"].get("optional") is not True:
            failures.append(f"Deployment: the Secret of {variable} must be optional (each provider is)")
    for variable in ["APNS_KEY_ID", "APNS_TEAM_ID", "WEBPUSH_VAPID_SUBJECT"]:
        reference = env[variable].get("valueFrom", {}).get("secretKeyRef")
        if reference is None:
            failures.append(f"Deployment: {variable} must come from a Secret")
        elif reference.get("optional") is not True:
            failures.append(f"Deployment: the Secret key of {variable} must be optional (each provider is)")

    capacity = int(deployment["metadata"].get("annotations", {}).get("push-worker/invalid-tokens-capacity", "0"))
    needed = PIPELINE_MEMORY_MIB + TABLE_MIB_PER_MILLION_TOKENS * capacity / 1_000_000 + MEMORY_HEADROOM_MIB
    if limit is not None and limit < needed:
        failures.append(
            f"Deployment: memory limit {limit:g}Mi has no room for the invalid-token table: {capacity} tokens "
            f"(push-worker/invalid-tokens-capacity) need at least {needed:g}Mi")
    session = env.get("KAFKA_SESSION_TIMEOUT_MS", {}).get("value")
    heartbeat = env.get("KAFKA_HEARTBEAT_INTERVAL_MS", {}).get("value")
    if session is None or not 6000 <= int(session) <= 30000:
        failures.append("Deployment: KAFKA_SESSION_TIMEOUT_MS must be set, 6000-30000 (a dead pod's partitions wait it)")
    elif heartbeat is None or int(heartbeat) * 3 > int(session):
        failures.append("Deployment: KAFKA_HEARTBEAT_INTERVAL_MS must be set to at most a third of session.timeout.ms")

    pdb = by_kind["PodDisruptionBudget"][0]
    if pdb["spec"].get("selector", {}).get("matchLabels", {}).items() - pod_labels.items():
        failures.append("PodDisruptionBudget: selector does not match the worker's pods")
    if pdb["spec"].get("unhealthyPodEvictionPolicy") != "AlwaysAllow":
        failures.append("PodDisruptionBudget: unhealthyPodEvictionPolicy must be AlwaysAllow (unready pods must drain)")

    job = pod_labels.get(monitor.get("jobLabel", ""), None)
    if job is None:
        failures.append("PodMonitor: jobLabel must name a pod label (the alerts' and dashboard's job)")
    for alert in [r for g in by_kind["PrometheusRule"][0]["spec"].get("groups", []) for r in g.get("rules", [])]:
        expression = alert.get("expr", "")
        if re.search(r"\b(push|kafka)_[a-z_]+", expression) and f'job="{job}"' not in expression:
            failures.append(f"PrometheusRule: {alert.get('alert') or alert.get('record')} must select job=\"{job}\"")
    releases = [doc.get("metadata", {}).get("labels", {}).get("release") for _, doc in resources]
    if any(releases):
        failures.append("the Prometheus Operator's selector label `release` is set in a manifest; set it once in "
                        "kustomization.yaml's patch")
    patches = kustomization[0].get("patches", []) if kustomization else []
    if not any(p.get("target", {}).get("group") == "monitoring.coreos.com" and "/metadata/labels/release" in
               p.get("patch", "") for p in patches):
        failures.append("kustomization.yaml: no patch sets the `release` label of the monitoring.coreos.com objects")
    failures += check_scaled_object(by_kind["ScaledObject"][0], deployment, env)
    failures += check_sizing(by_kind["ScaledObject"][0], container, env)
    return failures


def check_sizing(scaled, container, env):
    """KEDA's lagThreshold follows the sizing rule from the CPU request; its reset policy is the worker's."""
    failures = []
    request = container.get("resources", {}).get("requests", {}).get("cpu")
    for trigger in scaled.get("spec", {}).get("triggers", []):
        metadata = trigger.get("metadata", {})
        policy, expected_policy = metadata.get("offsetResetPolicy", "latest"), worker_reset_policy(env)
        if policy != expected_policy:
            failures.append(
                f"ScaledObject: offsetResetPolicy {policy} differs from the worker's auto.offset.reset "
                f"{expected_policy}")
        if request is None or not str(metadata.get("lagThreshold", "")).isdigit():
            continue
        expected = RECORDS_PER_CORE * PLANNED_UTILISATION * cores(request) * BACKLOG_SECONDS
        if abs(int(metadata["lagThreshold"]) - expected) > 0.05 * expected:
            failures.append(
                f"ScaledObject: lagThreshold {metadata['lagThreshold']} does not follow the sizing rule from the CPU "
                f"request {request}: {RECORDS_PER_CORE} records/s per core x {PLANNED_UTILISATION} x "
                f"{BACKLOG_SECONDS} s = {expected:g}")
    return failures


def check_scaled_object(scaled, deployment, env):
    """KEDA's required fields (scaleTargetRef.name, triggers[].type/metadata) and what the worker needs of them."""
    failures = []
    spec = scaled.get("spec", {})
    if spec.get("scaleTargetRef", {}).get("name") != deployment["metadata"]["name"]:
        failures.append("ScaledObject: scaleTargetRef does not name the Deployment")
    minimum, maximum = spec.get("minReplicaCount", 0), spec.get("maxReplicaCount", 100)
    if minimum < 2 or maximum < minimum:
        failures.append("ScaledObject: minReplicaCount must be at least 2 and at most maxReplicaCount")
    down = spec.get("advanced", {}).get("horizontalPodAutoscalerConfig", {}).get("behavior", {}).get("scaleDown", {})
    if down.get("stabilizationWindowSeconds", 0) < 60:
        failures.append("ScaledObject: scale-down needs a stabilization window (rebalance churn)")
    topics = set(env["PUSH_TOPICS"]["value"].split(","))
    triggers = [t for t in spec.get("triggers", []) if t.get("type") == "kafka"]
    if not triggers or len(triggers) != len(spec.get("triggers", [])):
        failures.append("ScaledObject: every trigger must be a kafka trigger")
    group = env["KAFKA_GROUP_ID"]["value"]
    fanout_topic = env.get("PUSH_FANOUT_TOPIC", {}).get("value", "push.fanout")
    fanout_group = env.get("PUSH_FANOUT_GROUP_ID", {}).get("value", group + ".fanout")
    covered = set()
    for trigger in triggers:
        metadata = trigger.get("metadata", {})
        covered.add(metadata.get("topic"))
        stage_group = fanout_group if metadata.get("topic") == fanout_topic else group
        if metadata.get("bootstrapServers") != env["KAFKA_BOOTSTRAP_SERVERS"]["value"] \
                or metadata.get("consumerGroup") != stage_group:
            failures.append(f"ScaledObject: the trigger on {metadata.get('topic')} must use the worker's bootstrap "
                            f"servers and the group {stage_group}")
        if not str(metadata.get("lagThreshold", "")).isdigit() or int(metadata["lagThreshold"]) <= 0:
            failures.append("ScaledObject: lagThreshold must be a positive integer")
        if metadata.get("excludePersistentLag") != "true":
            failures.append("ScaledObject: excludePersistentLag must be \"true\" (a stuck partition is no load)")
    if topics - covered:
        failures.append(f"ScaledObject: no kafka trigger for input topics {sorted(topics - covered)}")
    if fanout_topic not in covered:
        failures.append(f"ScaledObject: no kafka trigger for the fan-out group {fanout_group} on {fanout_topic} "
                        "(PUSH_REGISTRY_SCOPE=assigned: its lag is work too)")
    return failures


def run(check):
    """Runs `check` on the directory of the command line: one line per failure, exit 1 if any."""
    failures = check(sys.argv[1])
    for failure in failures:
        print(failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(run(check))
