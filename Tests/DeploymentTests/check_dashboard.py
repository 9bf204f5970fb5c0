"""Checks the Grafana dashboard (deploy/grafana/push-worker.json): `job` and `namespace` variables, every query of
the worker's own metrics filtered by both (the ingress's by `$job-ingress`) (and every kube-state-metrics or cAdvisor query by namespace), so that
other processes in the same Prometheus never show, and a panel for each thing an operator looks for.

Usage: python check_dashboard.py DASHBOARD_JSON   (exit 0 when all hold; else one line per failure)
"""

import json
import re
import sys

# What an operator looks for, each as a metric (or expression) some panel must query.
REQUIRED = {
    "replicas against desired": "kube_deployment_spec_replicas",
    "readiness": "kube_pod_status_ready",
    "invalid-token ratio": 'status="invalid_token"',
    "produce retries": "push_worker_produce_retries_total",
    "rules reloads": "push_rules_reloads_total",
    "memory against its limit": 'kube_pod_container_resource_limits{namespace=~"$namespace",container="push-worker",'
                                'resource="memory"}',
    "table sizes": "push_table_bytes",
    "latency SLO": "job:pushes_late:ratio_rate1h",
    "ingress answers": "push_ingress_requests_total",
    "ingress Kafka latency": "push_ingress_kafka_seconds_bucket",
}


def main():
    dashboard = json.load(open(sys.argv[1]))
    failures = []
    variables = {v["name"] for v in dashboard.get("templating", {}).get("list", [])}
    for name in ["datasource", "job", "namespace"]:
        if name not in variables:
            failures.append(f"no ${name} variable")
    expressions = []
    for panel in dashboard.get("panels", []):
        for target in panel.get("targets", []):
            expression = target.get("expr", "")
            expressions.append(expression)
            own = re.search(r"\b(push|kafka|process)_[a-z_]+|job:", expression)
            foreign = re.search(r"\b(kube|container)_[a-z_]+", expression)
            # The ingress's pods are scraped as job `<job>-ingress` (deploy/kubernetes/ingress/podmonitor.yaml).
            job = 'job=~"$job-ingress"' if "push_ingress_" in expression else 'job=~"$job"'
            if own and not (job in expression and 'namespace=~"$namespace"' in expression):
                failures.append(f"panel {panel.get('title')!r}: {expression} is not filtered by $job and $namespace")
            if foreign and 'namespace=~"$namespace"' not in expression:
                failures.append(f"panel {panel.get('title')!r}: {expression} is not filtered by $namespace")
    for purpose, needle in REQUIRED.items():
        if not any(needle in expression for expression in expressions):
            failures.append(f"no panel shows {purpose} ({needle})")
    for failure in failures:
        print(failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
