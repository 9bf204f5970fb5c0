"""Validates push-worker's custom resources offline against the CRD schemas vendored in deploy/kubernetes/crds
(Strimzi's KafkaTopic and KafkaUser, KEDA's ScaledObject and TriggerAuthentication, the Prometheus Operator's
PodMonitor and PrometheusRule), strictly: a field the schema does not name is an error (the API server would
prune it silently), unless the schema preserves unknown fields. Every CEL rule of the schemas
(x-kubernetes-validations) is evaluated with cel-python on every value it applies to, as the API server would on
create; a failing rule is an error with the rule's message. A rule the evaluator cannot compile or run (a function
of Kubernetes' CEL libraries it lacks) and a transition rule (`oldSelf`, checked only on update) are skipped with a
printed note naming the rule.

Every kustomization under deploy/kubernetes is rendered with `kubectl kustomize` when kubectl is on PATH; without
it, the resource files the kustomizations list are read as they are (patches then go unchecked).

Usage: python check_custom_resources.py DEPLOY_KUBERNETES_DIRECTORY   (exit 0 when every object validates; else
one line per failure)
"""

import copy
import pathlib
import re
import shutil
import subprocess
import sys

import celpy
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


def cel_rules(schema, path=()):
    """(path, rule, message) of every x-kubernetes-validations rule in `schema`; a path step is a property name,
    `[]` for every item of a list, `{}` for every value of a map."""
    if not isinstance(schema, dict):
        return []
    rules = [(path, entry["rule"], entry.get("message") or f"failed rule: {entry['rule']}")
             for entry in schema.get("x-kubernetes-validations", [])]
    for name, child in schema.get("properties", {}).items():
        rules += cel_rules(child, path + (name,))
    rules += cel_rules(schema.get("items"), path + ("[]",))
    rules += cel_rules(schema.get("additionalProperties"), path + ("{}",))
    for key in ["allOf", "anyOf", "oneOf"]:
        for child in schema.get(key, []):
            rules += cel_rules(child, path)
    return rules


def values_at(value, path, where=()):
    """(where, value) of every value `path` reaches in `value` (a rule applies only where its value is present)."""
    if not path:
        yield where, value
        return
    step, rest = path[0], path[1:]
    if step == "[]" and isinstance(value, list):
        for index, item in enumerate(value):
            yield from values_at(item, rest, where + (str(index),))
    elif step == "{}" and isinstance(value, dict):
        for key, item in value.items():
            yield from values_at(item, rest, where + (key,))
    elif isinstance(value, dict) and step in value:
        yield from values_at(value[step], rest, where + (step,))


def evaluation_problem(error):
    """What cel-python could not do, in a few words: the function it lacks, else the start of its error."""
    lacking = re.search(r"undeclared reference to '([^']+)'", str(error))
    return f"no function {lacking.group(1)}" if lacking else str(error)[:160]


class CELRules:
    """The CEL rules of one CRD version, compiled once; `problems` evaluates them on a document."""

    environment = celpy.Environment()

    def __init__(self, schema, label, notes):
        self.programs = []
        for path, rule, message in cel_rules(schema):
            if "oldSelf" in rule:
                notes.append(f"note: {label}: CEL transition rule skipped (checked on update only): {rule}")
                continue
            try:
                program = self.environment.program(self.environment.compile(rule))
            except celpy.CELParseError as error:
                notes.append(f"note: {label}: CEL rule skipped, cel-python cannot compile it ({error}): {rule}")
                continue
            self.programs.append((path, rule, message, program))

    def problems(self, document, label, notes):
        """(where, message) of every rule that evaluates to false on `document`, and how many evaluations ran (a
        rule cel-python cannot evaluate is noted instead)."""
        found, evaluations = [], 0
        for path, rule, message, program in self.programs:
            for where, value in values_at(document, path):
                try:
                    result = program.evaluate({"self": celpy.json_to_cel(value)})
                except celpy.CELEvalError as error:
                    result = error
                if isinstance(result, celpy.CELEvalError):
                    notes.append(f"note: {label}: CEL rule skipped, cel-python cannot evaluate it "
                                 f"({evaluation_problem(result)}): {rule}")
                    continue
                evaluations += 1
                if not bool(result):
                    found.append((".".join(where), message))
        return found, evaluations


def load_crds(directory, notes):
    """(apiVersion, kind) -> (validator, CEL rules), for every served version of every vendored CRD."""
    validators = {}
    for path in sorted(directory.glob("*.yaml")):
        for crd in yaml.safe_load_all(path.read_text()):
            if not crd or crd.get("kind") != "CustomResourceDefinition":
                continue
            group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
            for version in crd["spec"]["versions"]:
                if version.get("served"):
                    schema = version["schema"]["openAPIV3Schema"]
                    api = f"{group}/{version['name']}"
                    validators[(api, kind)] = (jsonschema.Draft7Validator(strict(schema)),
                                               CELRules(schema, f"{kind} {api}", notes))
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
    notes = []
    validators = load_crds(root / "crds", notes)
    failures = []
    expected_kinds = {"KafkaTopic", "KafkaUser", "ScaledObject", "TriggerAuthentication", "PodMonitor",
                      "PrometheusRule"}
    if {kind for _, kind in validators} != expected_kinds:
        failures.append(f"vendored CRDs define {sorted({k for _, k in validators})}, expected {sorted(expected_kinds)}")
    checked = set()
    evaluated = 0
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
                validator, rules = validators[(api, kind)]
                for problem in sorted(validator.iter_errors(document), key=lambda e: list(e.path)):
                    path = ".".join(str(p) for p in problem.path)
                    failures.append(f"{label}: {path}: {problem.message}")
                problems, evaluations = rules.problems(document, label, notes)
                failures += [f"{label}: {path}: {message}" for path, message in problems]
                evaluated += evaluations
            elif "." in group and not group.endswith(".k8s.io"):
                failures.append(f"{name}: {kind} of {api} has no vendored CRD schema in crds/")
    for kind in expected_kinds - checked:
        failures.append(f"no {kind} found in any kustomization")
    rules = sum(len(rules.programs) for _, rules in validators.values())
    print(f"CEL: {rules} rules of the vendored CRDs compiled, {evaluated} evaluations on the objects found")
    for line in dict.fromkeys(notes):
        print(line)
    for failure in failures:
        print(failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
