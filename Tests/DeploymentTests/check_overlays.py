"""Renders every kustomization under deploy/kubernetes (`kubectl kustomize`, offline) and checks the result:
each validates against the Kubernetes schemas (kubernetes-validate; CRD kinds are checked by check_manifests.py),
the CPU overlay swaps the ScaledObject for a HorizontalPodAutoscaler, the one-provider overlays leave no
setting, mount or volume of the other provider, and the secured-cluster overlays add their Kafka objects
(check_custom_resources.py validates those against the vendored CRDs).

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
    "overlays/apns-only": {"kinds": {"ScaledObject"}, "absent_kinds": set(), "absent_prefixes": ["FCM_"],
                           "absent_volume": "fcm"},
    "overlays/fcm-only": {"kinds": {"ScaledObject"}, "absent_kinds": set(), "absent_prefixes": ["APNS_"],
                          "absent_volume": "apns"},
    "overlays/strimzi": {"kinds": {"ScaledObject", "TriggerAuthentication", "KafkaTopic", "KafkaUser"},
                         "absent_kinds": set(), "absent_prefixes": []},
    "overlays/sasl-scram": {"kinds": {"ScaledObject", "TriggerAuthentication"}, "absent_kinds": set(),
                            "absent_prefixes": []},
}


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
        volume = expected.get("absent_volume")
        if volume and (any(v["name"] == volume for v in pod.get("volumes", []))
                       or any(m["name"] == volume for m in container.get("volumeMounts", []))):
            failures.append(f"{name}: still mounts the {volume} Secret")
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
