"""Checks push-worker's Kubernetes manifests for what the worker needs, beyond schema validity.

Usage: python check_manifests.py DIRECTORY   (exit 0 when every check holds; otherwise one line per failure)
Run by Tests/DeploymentTests with the .venv that deploy/local/setup.sh creates (PyYAML comes with
kubernetes-validate).
"""

import pathlib
import re
import sys

import yaml

# DESIGN.md's environment table, plus the worker's shutdown grace, its name in receipts and the log level.
REQUIRED_ENV = [
    "KAFKA_BOOTSTRAP_SERVERS", "KAFKA_GROUP_ID", "PUSH_TOPICS", "PUSH_RECEIPTS_TOPIC", "PUSH_DLQ_TOPIC",
    "PUSH_RETRY_TOPIC", "PUSH_RULES_FILE", "APNS_URL", "APNS_SANDBOX_URL", "APNS_KEY_FILE", "APNS_KEY_ID",
    "APNS_TEAM_ID", "APNS_TOPIC", "FCM_URL", "FCM_SERVICE_ACCOUNT_FILE", "PUSH_CA_FILE", "PUSH_HTTP_PORT",
    "PUSH_SHUTDOWN_GRACE_SECONDS", "PUSH_WORKER_ID", "LOG_LEVEL",
]
MINIMUM_MEMORY_LIMIT_MIB = 150
# Seconds between the end of the worker's own grace period and SIGKILL: producer flush, commit, leaving the group.
MINIMUM_SHUTDOWN_MARGIN_SECONDS = 10
UNITS = {"Ki": 1 / 1024, "Mi": 1, "Gi": 1024, "K": 1000 / 1024**2, "M": 1000**2 / 1024**2, "G": 1000**3 / 1024**2}


def mebibytes(quantity):
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([KMG]i?)?", str(quantity))
    if not match:
        return None
    number, unit = match.groups()
    return float(number) * UNITS[unit] if unit else float(number) / 1024**2


def load(directory):
    documents = []
    for path in sorted(pathlib.Path(directory).glob("*.yaml")):
        for document in yaml.safe_load_all(path.read_text()):
            if document:
                documents.append((path.name, document))
    return documents


def check(directory):
    failures = []
    documents = load(directory)
    resources = [(name, doc) for name, doc in documents if doc.get("kind") != "Kustomization"]
    by_kind = {}
    for name, doc in resources:
        by_kind.setdefault(doc.get("kind"), []).append(doc)
        if "namespace" in doc.get("metadata", {}):
            failures.append(f"{name}: sets metadata.namespace (the manifests are namespace-agnostic)")
        if doc.get("kind") == "Secret":
            failures.append(f"{name}: commits a Secret; secrets are created out of band")
    for kind in ["ConfigMap", "Deployment", "PodDisruptionBudget", "HorizontalPodAutoscaler"]:
        if len(by_kind.get(kind, [])) != 1:
            failures.append(f"expected one {kind}, found {len(by_kind.get(kind, []))}")
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

    if "run" not in container.get("args", []) + container.get("command", []):
        failures.append("Deployment: the container does not run `push-worker run`")

    port = int(env["PUSH_HTTP_PORT"]["value"])
    ports = {entry.get("name"): entry["containerPort"] for entry in container.get("ports", [])}
    if port not in ports.values():
        failures.append(f"Deployment: PUSH_HTTP_PORT {port} is not a container port")
    for probe, path in [("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")]:
        http = container.get(probe, {}).get("httpGet", {})
        if http.get("path") != path:
            failures.append(f"Deployment: {probe} must GET {path}, not {http.get('path')}")
        if ports.get(http.get("port"), http.get("port")) != port:
            failures.append(f"Deployment: {probe} must use PUSH_HTTP_PORT {port}")

    annotations = spec["template"]["metadata"].get("annotations", {})
    if annotations.get("prometheus.io/scrape") != "true" or annotations.get("prometheus.io/port") != str(port) \
            or annotations.get("prometheus.io/path") != "/metrics":
        failures.append(f"Deployment: prometheus.io annotations must scrape /metrics on {port}")

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

    for variable in ["APNS_KEY_FILE", "FCM_SERVICE_ACCOUNT_FILE"]:
        name, mount, volume = mounted_from(env[variable]["value"])
        if "secret" not in volume:
            failures.append(f"Deployment: {variable} is not in a Secret volume")
    for variable in ["APNS_KEY_ID", "APNS_TEAM_ID"]:
        if "secretKeyRef" not in env[variable].get("valueFrom", {}):
            failures.append(f"Deployment: {variable} must come from a Secret")

    pdb = by_kind["PodDisruptionBudget"][0]
    if pdb["spec"].get("selector", {}).get("matchLabels", {}).items() - pod_labels.items():
        failures.append("PodDisruptionBudget: selector does not match the worker's pods")
    hpa = by_kind["HorizontalPodAutoscaler"][0]
    target = hpa["spec"]["scaleTargetRef"]
    if target.get("kind") != "Deployment" or target.get("name") != deployment["metadata"]["name"]:
        failures.append("HorizontalPodAutoscaler: does not target the Deployment")
    if hpa["spec"].get("minReplicas", 1) < 2:
        failures.append("HorizontalPodAutoscaler: minReplicas below 2 leaves no worker during a disruption")
    return failures


def main():
    failures = check(sys.argv[1])
    for failure in failures:
        print(failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
