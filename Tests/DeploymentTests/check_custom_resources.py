"""Validates push-worker's custom resources offline against the CRD schemas vendored in deploy/kubernetes/crds
(Strimzi's KafkaTopic and KafkaUser, KEDA's ScaledObject and TriggerAuthentication, the Prometheus Operator's
PodMonitor and PrometheusRule), strictly: a field the schema does not name is an error (the API server would
prune it silently), unless the schema preserves unknown fields. CEL rules (x-kubernetes-validations) are not
evaluated.

Every kustomization under deploy/kubernetes is rendered with `kubectl kustomize` when kubectl is on PATH; without
it, the resource files the kustomizations list are read as they are (patches then go unchecked).

Usage: python check_custom_resources.py DEPLOY_KUBERNETES_DIRECTORY   (exit 0 when every object validates; else
one line per failure)
"""

import copy
import pathlib
import shutil
import subprocess
import sys

import jsonschema
import yaml


def strict(schema):
    """The CRD's OpenAPI v3 schema as a JSON Schema that rejects unknown fields and admits `nullable` nulls."""
    schema = copy.deepcopy(schema)

    def visit(node):
        if not isinstance(node, dict):
            return
        if node.get("nullable") and "type" in node:
            node["type"] = [node["type"], "null"]
        if node.get("x-kubernetes-int-or-string"):
            node.pop("type", None)
            node.setdefault("anyOf", [{"type": "integer"}, {"type": "string"}])
        if "properties" in node and "additionalProperties" not in node \
                and not node.get("x-kubernetes-preserve-unknown-fields"):
            node["additionalProperties"] = False
        for key in ["properties", "patternProperties", "definitions"]:
            for child in node.get(key, {}).values():
                visit(child)
        for key in ["items", "additionalProperties", "not"]:
            visit(node.get(key))
        for key in ["allOf", "anyOf", "oneOf"]:
            for child in node.get(key, []):
                visit(child)

    visit(schema)
    return schema


def load_crds(directory):
    """(apiVersion, kind) -> validator, for every served version of every vendored CRD."""
    validators = {}
    for path in sorted(directory.glob("*.yaml")):
        for crd in yaml.safe_load_all(path.read_text()):
            if not crd or crd.get("kind") != "CustomResourceDefinition":
                continue
            group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
            for version in crd["spec"]["versions"]:
                if version.get("served"):
                    schema = strict(version["schema"]["openAPIV3Schema"])
                    validators[(f"{group}/{version['name']}", kind)] = jsonschema.Draft7Validator(schema)
    return validators


def rendered(root):
    """(source, documents) of every kustomization, rendered, or its listed resource files read as they are."""
    results = []
    for kustomization in sorted(root.rglob("kustomization.yaml")):
        directory = kustomization.parent
        name = str(directory.relative_to(root))
        if shutil.which("kubectl"):
            output = subprocess.run(["kubectl", "kustomize", str(directory)], capture_output=True, text=True)
            if output.returncode != 0:
                results.append((name, None, output.stderr.strip()))
                continue
            results.append((name, [d for d in yaml.safe_load_all(output.stdout) if d], None))
        else:
            listed = yaml.safe_load(kustomization.read_text()).get("resources", [])
            documents = []
            for resource in listed:
                path = directory / resource
                if path.is_file():
                    documents += [d for d in yaml.safe_load_all(path.read_text()) if d]
            results.append((name, documents, None))
    return results


def main():
    root = pathlib.Path(sys.argv[1])
    validators = load_crds(root / "crds")
    failures = []
    expected_kinds = {"KafkaTopic", "KafkaUser", "ScaledObject", "TriggerAuthentication", "PodMonitor",
                      "PrometheusRule"}
    if {kind for _, kind in validators} != expected_kinds:
        failures.append(f"vendored CRDs define {sorted({k for _, k in validators})}, expected {sorted(expected_kinds)}")
    checked = set()
    for name, documents, error in rendered(root):
        if documents is None:
            failures.append(f"{name}: kubectl kustomize failed: {error}")
            continue
        for document in documents:
            api, kind = document.get("apiVersion", ""), document.get("kind", "")
            group = api.split("/")[0] if "/" in api else ""
            if (api, kind) in validators:
                checked.add(kind)
                label = f"{name}: {kind} {document.get('metadata', {}).get('name')}"
                for problem in sorted(validators[(api, kind)].iter_errors(document), key=lambda e: list(e.path)):
                    path = ".".join(str(p) for p in problem.path)
                    failures.append(f"{label}: {path}: {problem.message}")
            elif "." in group and not group.endswith(".k8s.io"):
                failures.append(f"{name}: {kind} of {api} has no vendored CRD schema in crds/")
    for kind in expected_kinds - checked:
        failures.append(f"no {kind} found in any kustomization")
    for failure in failures:
        print(failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
