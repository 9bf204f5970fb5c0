"""Checks the secured-cluster overlays against the base and each other, from their files (no kubectl needed):

- overlays/strimzi: a KafkaTopic for exactly the topics the fleet uses (the base Deployment's topic variables, the
  retry tiers of PUSH_RETRY_TOPIC + PUSH_RETRY_TIERS, the device registry and client settings tables, the fan-out
  of the assigned registry scope with the registry topics' partition count and at least the input's retention),
  compacted exactly where the contract says so, retry tiers kept longer than their delay, at least as many input partitions
  as KEDA's maxReplicaCount; the KafkaUser push-worker with exactly the ACLs the worker needs (no more: no `All`, no
  `*`, no cluster rights), the tools' user without rights on the live group; one cluster name behind the labels,
  the bootstrap address and the CA Secret.
- both secured overlays: SASL_SSL with a mechanism the Debian librdkafka build has, the password from a Secret,
  and each ScaledObject trigger with the same bootstrap servers, the matching `sasl` and `tls`, and an
  authenticationRef naming the overlay's TriggerAuthentication, which supplies username, password and ca.

Usage: python check_secured_overlays.py DEPLOY_KUBERNETES_DIRECTORY   (exit 0 when all hold; else one line each)
"""

import pathlib
import re
import sys

import yaml

COMPACTED_TABLES = {"PUSH_INVALID_TOKENS_TOPIC"}
# The device registry and client settings tables (compacted): read by the worker once they exist.
REGISTRY_TOPICS = {"push.devices", "push.clients"}
DEVICES_TOPIC = "push.devices"
# The fan-out of PUSH_REGISTRY_SCOPE=assigned: written and read by the worker, co-partitioned with the registry.
FANOUT_TOPIC = "push.fanout"
KEDA_SASL = {"SCRAM-SHA-512": "scram_sha512", "SCRAM-SHA-256": "scram_sha256", "PLAIN": "plaintext"}
UNITS_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000}


def documents(path):
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def env_of(deployment):
    return {e["name"]: e for e in deployment["spec"]["template"]["spec"]["containers"][0].get("env", [])}


def tier_delays(text):
    delays = []
    for part in text.split(","):
        match = re.fullmatch(r"(\d+)(ms|s|m|h)", part.strip())
        delays.append(int(match.group(1)) * UNITS_MS[match.group(2)] if match else None)
    return delays


def permissions(user):
    """(resource type, name, pattern) -> set of operations, from a KafkaUser's ACLs."""
    granted = {}
    for acl in user["spec"]["authorization"]["acls"]:
        resource = acl["resource"]
        key = (resource["type"], resource.get("name", ""), resource.get("patternType", "literal"))
        granted.setdefault(key, set()).update(acl["operations"])
    return granted


def covers(granted, resource_type, name):
    """The operations `granted` allows on the named resource (literal or prefix matches)."""
    operations = set()
    for (kind, pattern, pattern_type), allowed in granted.items():
        if kind == resource_type and (pattern == name or (pattern_type == "prefix" and name.startswith(pattern))):
            operations |= allowed
    return operations


def check_strimzi(root, base_env, scaled):
    failures = []
    overlay = root / "overlays/strimzi"
    topics = {d["metadata"]["name"]: d for d in documents(overlay / "kafkatopics.yaml") if d["kind"] == "KafkaTopic"}
    users = {d["metadata"]["name"]: d for d in documents(overlay / "kafkausers.yaml") if d["kind"] == "KafkaUser"}

    value = lambda name: base_env[name]["value"]  # noqa: E731
    inputs = set(value("PUSH_TOPICS").split(","))
    delays = tier_delays(value("PUSH_RETRY_TIERS"))
    retries = {f"{value('PUSH_RETRY_TOPIC')}-{delay}": delay for delay in delays if delay}
    tables = {value(name) for name in COMPACTED_TABLES} | REGISTRY_TOPICS
    produced = {value("PUSH_RECEIPTS_TOPIC"), value("PUSH_DLQ_TOPIC"), value("PUSH_INVALID_TOKENS_TOPIC")}
    fanout = base_env.get("PUSH_FANOUT_TOPIC", {}).get("value", FANOUT_TOPIC)
    expected = inputs | set(retries) | tables | produced | {fanout}
    if set(topics) != expected:
        failures.append(f"kafkatopics.yaml: topics {sorted(topics)}, the fleet uses {sorted(expected)}")
    for name, topic in topics.items():
        config = topic["spec"].get("config", {})
        compact = config.get("cleanup.policy") == "compact"
        if compact != (name in tables):
            failures.append(f"KafkaTopic {name}: cleanup.policy must be {'compact' if name in tables else 'delete'}")
        if name in retries and int(config.get("retention.ms", 0)) <= retries[name]:
            failures.append(f"KafkaTopic {name}: retention.ms must exceed the tier's delay of {retries[name]} ms")
        if int(config.get("min.insync.replicas", 1)) >= topic["spec"].get("replicas", 1):
            failures.append(f"KafkaTopic {name}: min.insync.replicas must be below replicas (acks=all)")
    # A fan-out record waits in push.fanout for as long as its input record would have waited in the input: a stage 2
    # behind by longer than the fan-out's retention would lose records its input stage has committed past.
    kept = lambda name: int(topics[name]["spec"].get("config", {}).get("retention.ms", 0))  # noqa: E731
    shortest = min((kept(name) for name in inputs & set(topics)), default=0)
    if fanout in topics and kept(fanout) < shortest:
        failures.append(f"KafkaTopic {fanout}: retention.ms must be at least the input's ({shortest} ms)")
    counts = {name: topics[name]["spec"].get("partitions") for name in REGISTRY_TOPICS | {fanout} if name in topics}
    if len(set(counts.values())) > 1:
        failures.append(f"kafkatopics.yaml: {fanout} and the registry topics must have one partition count: {counts}")
    maximum = scaled["spec"].get("maxReplicaCount", 100)
    for name in inputs & set(topics):
        if topics[name]["spec"]["partitions"] < maximum:
            failures.append(f"KafkaTopic {name}: fewer partitions than maxReplicaCount {maximum} (idle pods)")

    worker = users.get("push-worker")
    if worker is None:
        return failures + ["kafkausers.yaml: no KafkaUser push-worker"]
    granted = permissions(worker)
    needed = {("topic", t): {"Describe", "Read"} for t in inputs | tables}
    # The tombstones of the registry keys whose token a provider called dead.
    needed[("topic", DEVICES_TOPIC)] = {"Describe", "Read", "Write"}
    for topic in retries:
        needed[("topic", topic)] = {"Describe", "Read", "Write"}
    for topic in produced:
        needed[("topic", topic)] = needed.get(("topic", topic), {"Describe"}) | {"Describe", "Write"}
    needed[("group", value("KAFKA_GROUP_ID"))] = {"Describe", "Read"}
    needed[("topic", fanout)] = {"Describe", "Read", "Write"}
    fanout_group = base_env.get("PUSH_FANOUT_GROUP_ID", {}).get("value", value("KAFKA_GROUP_ID") + ".fanout")
    needed[("group", fanout_group)] = {"Describe", "Read"}
    for (kind, name), operations in sorted(needed.items()):
        missing = operations - covers(granted, kind, name)
        if missing:
            failures.append(f"KafkaUser push-worker: lacks {sorted(missing)} on {kind} {name}")
    for (kind, name, pattern_type), operations in sorted(granted.items()):
        if "All" in operations or name in ("*", "") or kind not in ("topic", "group"):
            failures.append(f"KafkaUser push-worker: grants too much: {sorted(operations)} on {kind} {name}")
            continue
        matched = {k for k in needed if k[0] == kind and (k[1] == name or
                                                          (pattern_type == "prefix" and k[1].startswith(name)))}
        allowed = set().union(*(needed[k] for k in matched)) if matched else set()
        if operations - allowed:
            failures.append(f"KafkaUser push-worker: grants {sorted(operations - allowed)} on {kind} {name} "
                            "that the worker does not use")
    tools = users.get("push-worker-tools")
    if tools is None or covers(permissions(tools), "group", value("KAFKA_GROUP_ID")):
        failures.append("KafkaUser push-worker-tools: must exist and have no rights on the live group")

    clusters = {d["metadata"].get("labels", {}).get("strimzi.io/cluster") for d in [*topics.values(), *users.values()]}
    if len(clusters) != 1:
        failures.append(f"strimzi overlay: objects name clusters {sorted(map(str, clusters))}, expected one")
        return failures
    cluster = clusters.pop()
    patch = documents(overlay / "kafka-security.yaml")[0]
    env = env_of(patch)
    if env.get("KAFKA_BOOTSTRAP_SERVERS", {}).get("value") != f"{cluster}-kafka-bootstrap:9093":
        failures.append(f"strimzi overlay: KAFKA_BOOTSTRAP_SERVERS must be cluster {cluster}'s TLS bootstrap")
    reference = env.get("KAFKA_SASL_PASSWORD", {}).get("valueFrom", {}).get("secretKeyRef", {})
    if reference.get("name") != "push-worker" or env.get("KAFKA_SASL_USERNAME", {}).get("value") != "push-worker":
        failures.append("strimzi overlay: the worker must log in as the KafkaUser push-worker with its Secret")
    volumes = patch["spec"]["template"]["spec"].get("volumes", [])
    if not any(v.get("secret", {}).get("secretName") == f"{cluster}-cluster-ca-cert" for v in volumes):
        failures.append(f"strimzi overlay: the CA must come from the Secret {cluster}-cluster-ca-cert")
    return failures


def check_secured(root, name, triggers):
    """SASL_SSL in the worker and the same in each of KEDA's `triggers` triggers, with an authenticationRef that
    exists."""
    failures = []
    overlay = root / "overlays" / name
    kustomization = yaml.safe_load((overlay / "kustomization.yaml").read_text())
    env = env_of(documents(overlay / "kafka-security.yaml")[0])
    protocol = env.get("KAFKA_SECURITY_PROTOCOL", {}).get("value")
    mechanism = env.get("KAFKA_SASL_MECHANISM", {}).get("value")
    if protocol != "SASL_SSL":
        failures.append(f"{name}: KAFKA_SECURITY_PROTOCOL must be SASL_SSL, not {protocol}")
    if mechanism not in KEDA_SASL:
        failures.append(f"{name}: KAFKA_SASL_MECHANISM {mechanism} is not one librdkafka 2.0.2 (Debian) offers")
    if "secretKeyRef" not in env.get("KAFKA_SASL_PASSWORD", {}).get("valueFrom", {}):
        failures.append(f"{name}: KAFKA_SASL_PASSWORD must come from a Secret")
    if "triggerauthentication.yaml" not in kustomization.get("resources", []):
        failures.append(f"{name}: kustomization.yaml does not list triggerauthentication.yaml")
    authentication = documents(overlay / "triggerauthentication.yaml")[0]
    supplied = {t["parameter"] for t in authentication["spec"].get("secretTargetRef", [])} | \
        {t["parameter"] for t in authentication["spec"].get("env", [])}
    if {"username", "password", "ca"} - supplied:
        failures.append(f"{name}: TriggerAuthentication lacks {sorted({'username', 'password', 'ca'} - supplied)}")
    operations = {}
    for patch in kustomization.get("patches", []):
        if patch.get("target", {}).get("kind") == "ScaledObject":
            for operation in yaml.safe_load(patch["patch"]):
                operations[operation["path"]] = operation.get("value")
    expected = {}
    for trigger in (f"/spec/triggers/{index}" for index in range(triggers)):
        expected |= {
            f"{trigger}/metadata/bootstrapServers": env.get("KAFKA_BOOTSTRAP_SERVERS", {}).get("value"),
            f"{trigger}/metadata/sasl": KEDA_SASL.get(mechanism),
            f"{trigger}/metadata/tls": "enable",
            f"{trigger}/authenticationRef": {"name": authentication["metadata"]["name"]},
        }
    for path, value in expected.items():
        if operations.get(path) != value:
            failures.append(f"{name}: the ScaledObject patch must set {path} to {value}, not {operations.get(path)}")
    return failures


def main():
    root = pathlib.Path(sys.argv[1])
    base = root / "base"
    deployment = next(d for d in documents(base / "deployment.yaml") if d["kind"] == "Deployment")
    scaled = next(d for d in documents(base / "scaledobject.yaml") if d["kind"] == "ScaledObject")
    failures = check_strimzi(root, env_of(deployment), scaled)
    for name in ["strimzi", "sasl-scram"]:
        failures += check_secured(root, name, len(scaled["spec"].get("triggers", [])))
    for failure in failures:
        print(failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
