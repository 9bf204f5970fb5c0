"""Checks the ingress's Kubernetes manifests (deploy/kubernetes/ingress) for what `push-worker ingress` needs, beyond
schema validity: one of each object, all listed, wired to one another by labels and port names.

Usage: python check_ingress_manifests.py DIRECTORY   (exit 0 when every check holds; otherwise one line per failure)
"""

import sys

from check_manifests import check_probes, load, resources_by_kind, run

KINDS = ["Deployment", "Service", "PodDisruptionBudget", "NetworkPolicy", "HorizontalPodAutoscaler", "PodMonitor"]
# Seconds after the Kafka timeout: a second of answer budget, the producer's 10 s flush, and margin.
SHUTDOWN_AFTER_KAFKA_TIMEOUT_SECONDS = 15


def selects(selector, labels):
    return bool(selector) and not (selector.items() - labels.items())


def check(directory):
    failures = []
    documents = load(directory)
    kustomization = [doc for _, doc in documents if doc.get("kind") == "Kustomization"]
    resources, by_kind = resources_by_kind(documents, KINDS, failures)
    listed = set(kustomization[0].get("resources", [])) if kustomization else set()
    for name, _ in resources:
        if name not in listed:
            failures.append(f"kustomization.yaml: does not list {name}")
    if failures:
        return failures

    deployment = by_kind["Deployment"][0]
    spec = deployment["spec"]
    pod = spec["template"]["spec"]
    labels = spec["template"]["metadata"].get("labels", {})
    container = pod["containers"][0]
    env = {entry["name"]: entry for entry in container.get("env", [])}
    ports = {entry.get("name"): entry["containerPort"] for entry in container.get("ports", [])}
    if not selects(spec["selector"].get("matchLabels", {}), labels):
        failures.append("Deployment: selector does not match the pod template's labels")
    if labels.get("app.kubernetes.io/component") != "ingress":
        failures.append("Deployment: pods are not labelled app.kubernetes.io/component: ingress")
    if "replicas" in spec:
        failures.append("Deployment: sets replicas, which every apply would reset under the autoscaler")
    if "ingress" not in container.get("args", []) + container.get("command", []):
        failures.append("Deployment: the container does not run `push-worker ingress`")
    for name in ["KAFKA_BOOTSTRAP_SERVERS", "PUSH_INGRESS_TOPIC", "PUSH_INGRESS_PORT", "PUSH_HTTP_PORT"]:
        if name not in env:
            failures.append(f"Deployment: env {name} missing")
    if "PUSH_INGRESS_KEYS" in env and "value" in env["PUSH_INGRESS_KEYS"]:
        failures.append("Deployment: PUSH_INGRESS_KEYS is written in the manifest; keys come from a Secret")
    if "PUSH_INGRESS_KEYS" not in env and "PUSH_INGRESS_KEYS_FILE" not in env:
        failures.append("Deployment: neither PUSH_INGRESS_KEYS nor PUSH_INGRESS_KEYS_FILE is set")
    if failures:
        return failures

    ingress_port = int(env["PUSH_INGRESS_PORT"]["value"])
    status_port = int(env["PUSH_HTTP_PORT"]["value"])
    port_names = {number: name for name, number in ports.items()}
    for variable, number in [("PUSH_INGRESS_PORT", ingress_port), ("PUSH_HTTP_PORT", status_port)]:
        if number not in ports.values():
            failures.append(f"Deployment: {variable} {number} is not a container port")
    failures += check_probes(container, ports, status_port)
    keys_file = env.get("PUSH_INGRESS_KEYS_FILE", {}).get("value")
    if keys_file:
        mounts = {mount["name"]: mount["mountPath"] for mount in container.get("volumeMounts", [])}
        secrets = {volume["name"] for volume in pod.get("volumes", []) if "secret" in volume}
        if not any(keys_file.startswith(path.rstrip("/") + "/") and name in secrets for name, path in mounts.items()):
            failures.append(f"Deployment: PUSH_INGRESS_KEYS_FILE {keys_file} is not in a mounted Secret")
    timeout_seconds = int(env.get("PUSH_INGRESS_KAFKA_TIMEOUT_MS", {}).get("value", "5000")) / 1000
    grace = pod.get("terminationGracePeriodSeconds", 30)
    if grace < timeout_seconds + SHUTDOWN_AFTER_KAFKA_TIMEOUT_SECONDS:
        failures.append(
            f"Deployment: terminationGracePeriodSeconds {grace} is below the Kafka timeout "
            f"({timeout_seconds:g} s) + {SHUTDOWN_AFTER_KAFKA_TIMEOUT_SECONDS} s")

    service = by_kind["Service"][0]
    if not selects(service["spec"].get("selector", {}), labels):
        failures.append("Service: selector does not match the ingress pods")
    targets = [entry.get("targetPort") for entry in service["spec"].get("ports", [])]
    if not any(target in (ingress_port, port_names.get(ingress_port)) for target in targets):
        failures.append(f"Service: no port targets the ingress port {ingress_port}")
    if any(target in (status_port, port_names.get(status_port)) for target in targets):
        failures.append("Service: exposes the status port")

    for kind in ["PodDisruptionBudget", "NetworkPolicy", "PodMonitor"]:
        document = by_kind[kind][0]["spec"]
        selector = (document.get("podSelector") or document.get("selector") or {}).get("matchLabels", {})
        if not selects(selector, labels):
            failures.append(f"{kind}: does not select the ingress pods")
    allowed = {port.get("port") for rule in by_kind["NetworkPolicy"][0]["spec"].get("ingress", [])
               for port in rule.get("ports", [])}
    for number in [ingress_port, status_port]:
        if number not in allowed:
            failures.append(f"NetworkPolicy: port {number} is not reachable")
    endpoints = by_kind["PodMonitor"][0]["spec"].get("podMetricsEndpoints", [])
    if not any(endpoint.get("port") == port_names.get(status_port) for endpoint in endpoints):
        failures.append("PodMonitor: does not scrape the status port")

    hpa = by_kind["HorizontalPodAutoscaler"][0]["spec"]
    target = hpa.get("scaleTargetRef", {})
    if target.get("kind") != "Deployment" or target.get("name") != deployment["metadata"]["name"]:
        failures.append("HorizontalPodAutoscaler: does not scale the ingress Deployment")
    if not any(metric.get("resource", {}).get("name") == "cpu" for metric in hpa.get("metrics", [])):
        failures.append("HorizontalPodAutoscaler: does not scale on CPU")
    if hpa.get("minReplicas", 1) < 2:
        failures.append("HorizontalPodAutoscaler: minReplicas below 2 leaves IMKIT without an answer in a rollout")
    return failures


if __name__ == "__main__":
    sys.exit(run(check))
