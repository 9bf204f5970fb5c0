"""Renders every kustomization under deploy/kubernetes (`kubectl kustomize`, offline) and checks the result:
each validates against the Kubernetes schemas (kubernetes-validate; CRD kinds are checked by check_manifests.py),
the CPU overlay swaps the ScaledObject for a HorizontalPodAutoscaler, every worker Deployment mounts both
providers' Secrets optionally (so that it starts with either one), and the secured-cluster overlays add their
Kafka objects (check_custom_resources.py validates those against the vendored CRDs).

Usage: python check_overlays.py DEPLOY_KUBERNETES_DIRECTORY KUBERNETES_VERSION
"""

import os
import pathlib
import subprocess
import sys
import tempfile

import yaml

EXPECTATIONS = {
    "base": {"kinds": {"ScaledObject"}, "absent_kinds": {"HorizontalPodAutoscaler"}, "absent_prefixes": []},
    "ingress": {"kinds": {"Service", "PodDisruptionBudget", "NetworkPolicy", "HorizontalPodAutoscaler", "PodMonitor"},
                "absent_kinds": {"ScaledObject"}, "absent_prefixes": ["APNS_", "FCM_"]},
    "overlays/cpu-hpa": {"kinds": {"HorizontalPodAutoscaler"}, "absent_kinds": {"ScaledObject"},
                         "absent_prefixes": []},
    "overlays/strimzi": {"kinds": {"ScaledObject", "TriggerAuthentication", "KafkaTopic", "KafkaUser"},
                         "absent_kinds": set(), "absent_prefixes": []},
    "overlays/sasl-scram": {"kinds": {"ScaledObject", "TriggerAuthentication"}, "absent_kinds": set(),
                            "absent_prefixes": []},
}


# The provider Secrets of the worker: its volume, and the variables taken from its keys.
PROVIDER_SECRETS = {
    "push-worker-apns": ("apns", ["APNS_KEY_ID", "APNS_TEAM_ID"]),
    "push-worker-fcm": ("fcm", []),
    "push-worker-webpush": ("webpush", ["WEBPUSH_VAPID_SUBJECT"]),
}


def provider_secret_problems(pod, container):
    """Why the rendered worker pod would not start without one provider's Secret: each Secret is mounted as an
    optional volume and each variable from its keys is an optional secretKeyRef (the worker leaves out a provider
    whose files are absent and whose identity variables are unset)."""
    problems = []
    volumes = {volume["name"]: volume for volume in pod.get("volumes", [])}
    mounts = {mount["name"] for mount in container.get("volumeMounts", [])}
    env = {entry["name"]: entry for entry in container.get("env", [])}
    for secret, (volume_name, variables) in PROVIDER_SECRETS.items():
        volume = volumes.get(volume_name, {}).get("secret", {})
        if volume.get("secretName") != secret or volume_name not in mounts:
            problems.append(f"does not mount the {secret} Secret as volume {volume_name}")
        elif volume.get("optional") is not True:
            problems.append(f"the {secret} Secret volume is not optional: the pod would not start without it")
        for variable in variables:
            reference = env.get(variable, {}).get("valueFrom", {}).get("secretKeyRef", {})
            if reference.get("name") != secret or reference.get("optional") is not True:
                problems.append(f"{variable} is not an optional key of the {secret} Secret")
    return problems


def main():
    root, version = pathlib.Path(sys.argv[1]), sys.argv[2]
    validate = pathlib.Path(sys.executable).parent / "kubernetes-validate"
    failures = []
    found = sorted(str(path.parent.relative_to(root)) for path in root.rglob("kustomization.yaml"))
    if found != sorted(EXPECTATIONS):
        failures.append(f"kustomizations {found}, expected {sorted(EXPECTATIONS)}")
    for name, expected in EXPECTATIONS.items():
        rendered = subprocess.run(["kubectl", "kustomize", str(root / name)], capture_output=True, text=True)
        if rendered.returncode != 0:
            failures.append(f"{name}: kubectl kustomize failed: {rendered.stderr.strip()}")
            continue
        documents = [doc for doc in yaml.safe_load_all(rendered.stdout) if doc]
        kinds = {doc["kind"] for doc in documents}
        for kind in expected["kinds"] - kinds:
            failures.append(f"{name}: renders no {kind}")
        for kind in expected["absent_kinds"] & kinds:
            failures.append(f"{name}: still renders a {kind}")
        deployment = next(doc for doc in documents if doc["kind"] == "Deployment")
        pod = deployment["spec"]["template"]["spec"]
        container = pod["containers"][0]
        for prefix in expected["absent_prefixes"]:
            for entry in container.get("env", []):
                if entry["name"].startswith(prefix):
                    failures.append(f"{name}: still sets {entry['name']}")
        if deployment["metadata"]["name"] == "push-worker":
            failures += [f"{name}: {problem}" for problem in provider_secret_problems(pod, container)]
        core = [doc for doc in documents if "." not in doc["apiVersion"].split("/")[0] or
                doc["apiVersion"].split("/")[0].endswith(".k8s.io")]
        with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as file:
            yaml.safe_dump_all(core, file)
        try:
            result = subprocess.run([str(validate), "--strict", "-k", version, file.name], capture_output=True,
                                    text=True)
            if result.returncode != 0:
                failures.append(f"{name}: kubernetes-validate failed:\n{result.stdout}{result.stderr}")
        finally:
            os.unlink(file.name)
    for failure in failures:
        print(failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
