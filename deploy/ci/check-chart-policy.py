#!/usr/bin/env python3
"""Checks what the Kubernetes schemas cannot: that a render of the chart is complete and safe.

    python3 deploy/ci/check-chart-policy.py <rendered.yaml>...

For every render:
  - it has a Deployment, ConfigMap, NetworkPolicy and PodDisruptionBudget per component, a
    ServiceAccount, a Service for the gateway and an HPA for the gateway and tracking;
  - every container runs as non-root with a read-only root file system, no privilege
    escalation, capabilities ALL dropped and the RuntimeDefault seccomp profile, has a /tmp
    emptyDir, startup, liveness and readiness probes on its declared port, and resources;
  - credentials (*_URL of MongoDB, NATS, Redis) only come from Secrets, never from a ConfigMap
    or a plain value;
  - every object a component owns selects that component's pods only (selectors match labels);
  - NetworkPolicies govern ingress and egress; only the gateway's admits anyone, and each
    admits nothing but the component's own port (the others: their health/metrics port; the
    gateway's operations port only from named peers);
  - the gateway serves metrics on its operations port, and scrape annotations point there.
Prints each problem; exit 1 when there is any.
"""
import sys

import yaml

COMPONENTS = {"gateway", "affiliate", "tracking", "commission", "payout", "webhook", "web"}
AUTOSCALED = {"gateway", "tracking"}
CREDENTIALS = {"MONGO_URL", "NATS_URL", "REDIS_URL"}


def component_of(obj):
    return obj["metadata"].get("labels", {}).get("app.kubernetes.io/component")


def check_container(where, container, pod_spec, problems):
    sc = container.get("securityContext", {})
    pod_sc = pod_spec.get("securityContext", {})

    def effective(key):
        return sc.get(key, pod_sc.get(key))

    if effective("runAsNonRoot") is not True:
        problems.append(f"{where}: runAsNonRoot is not true")
    if sc.get("readOnlyRootFilesystem") is not True:
        problems.append(f"{where}: readOnlyRootFilesystem is not true")
    if sc.get("allowPrivilegeEscalation") is not False:
        problems.append(f"{where}: allowPrivilegeEscalation is not false")
    if "ALL" not in sc.get("capabilities", {}).get("drop", []):
        problems.append(f"{where}: capabilities ALL are not dropped")
    if (effective("seccompProfile") or {}).get("type") != "RuntimeDefault":
        problems.append(f"{where}: seccompProfile is not RuntimeDefault")
    volumes = {v["name"]: v for v in pod_spec.get("volumes", [])}
    tmp = [m for m in container.get("volumeMounts", []) if m["mountPath"] == "/tmp"]
    if not tmp or "emptyDir" not in volumes.get(tmp[0]["name"], {}):
        problems.append(f"{where}: /tmp is not an emptyDir")
    ports = {p.get("name") for p in container.get("ports", [])}
    for probe, path in (("startupProbe", "/healthz"), ("livenessProbe", "/healthz"), ("readinessProbe", "/readyz")):
        http = container.get(probe, {}).get("httpGet", {})
        if http.get("path") != path or http.get("port") not in ports:
            problems.append(f"{where}: {probe} is not GET {path} on a declared port")
    resources = container.get("resources", {})
    if not resources.get("requests") or not resources.get("limits", {}).get("memory"):
        problems.append(f"{where}: resources need requests and a memory limit")
    for env in container.get("env", []):
        if env["name"] in CREDENTIALS and "secretKeyRef" not in env.get("valueFrom", {}):
            problems.append(f"{where}: {env['name']} is not read from a Secret")


def check_render(path):
    problems = []
    with open(path, encoding="utf-8") as f:
        objects = [o for o in yaml.safe_load_all(f) if o]
    by_kind = {}
    for obj in objects:
        by_kind.setdefault(obj["kind"], []).append(obj)

    def components(kind):
        return {component_of(o) for o in by_kind.get(kind, [])}

    for kind in ("Deployment", "ConfigMap", "NetworkPolicy", "PodDisruptionBudget"):
        missing = COMPONENTS - components(kind)
        if missing:
            problems.append(f"{path}: no {kind} for {', '.join(sorted(missing))}")
    if "gateway" not in components("Service"):
        problems.append(f"{path}: no Service for the gateway")
    missing = AUTOSCALED - components("HorizontalPodAutoscaler")
    if missing:
        problems.append(f"{path}: no HorizontalPodAutoscaler for {', '.join(sorted(missing))}")
    if not by_kind.get("ServiceAccount"):
        problems.append(f"{path}: no ServiceAccount")

    for cm in by_kind.get("ConfigMap", []):
        leaked = CREDENTIALS & set(cm.get("data", {}))
        if leaked:
            problems.append(f"{path}: ConfigMap {cm['metadata']['name']} holds {', '.join(sorted(leaked))}")

    pod_labels = {}
    for deployment in by_kind.get("Deployment", []):
        name = deployment["metadata"]["name"]
        template = deployment["spec"]["template"]
        labels = template["metadata"]["labels"]
        pod_labels[component_of(deployment)] = labels
        selector = deployment["spec"]["selector"]["matchLabels"]
        if any(labels.get(k) != v for k, v in selector.items()):
            problems.append(f"{path}: Deployment {name}: selector does not match its pod labels")
        spec = template["spec"]
        if spec.get("automountServiceAccountToken") is not False:
            problems.append(f"{path}: Deployment {name}: the service account token is mounted")
        for container in spec["containers"]:
            check_container(f"{path}: Deployment {name} container {container['name']}", container, spec, problems)

    for kind, selector_of in (
        ("Service", lambda o: o["spec"]["selector"]),
        ("PodDisruptionBudget", lambda o: o["spec"]["selector"]["matchLabels"]),
        ("NetworkPolicy", lambda o: o["spec"]["podSelector"]["matchLabels"]),
    ):
        for obj in by_kind.get(kind, []):
            labels = pod_labels.get(component_of(obj), {})
            if not labels or any(labels.get(k) != v for k, v in selector_of(obj).items()):
                problems.append(f"{path}: {kind} {obj['metadata']['name']} selects no pods of its component")

    for policy in by_kind.get("NetworkPolicy", []):
        name = policy["metadata"]["name"]
        if set(policy["spec"].get("policyTypes", [])) != {"Ingress", "Egress"}:
            problems.append(f"{path}: NetworkPolicy {name} does not govern both ingress and egress")
        public = component_of(policy) == "gateway"
        for rule in policy["spec"].get("ingress", []):
            ports = {p.get("port") for p in rule.get("ports", [])}
            # The gateway's operations port (metrics) is a rule of its own, never open to all.
            ops = public and ports == {"ops"}
            if ports != {"http" if public else "health"} and not ops:
                problems.append(f"{path}: NetworkPolicy {name} admits ports other than its own: {ports}")
            if (not public or ops) and not rule.get("from"):
                problems.append(f"{path}: NetworkPolicy {name} admits traffic from anywhere")

    # Metrics never on the public port: the gateway is scraped on its operations port.
    for deployment in by_kind.get("Deployment", []):
        if component_of(deployment) != "gateway":
            continue
        template = deployment["spec"]["template"]
        scrape_port = template["metadata"].get("annotations", {}).get("prometheus.io/port")
        ports = {p.get("name"): p.get("containerPort") for c in template["spec"]["containers"] for p in c.get("ports", [])}
        if "ops" not in ports:
            problems.append(f"{path}: the gateway has no operations port (ops) for its metrics")
        elif scrape_port is not None and str(ports["ops"]) != str(scrape_port):
            problems.append(f"{path}: the gateway is scraped on port {scrape_port}, not its operations port")

    return problems


def main():
    problems = []
    for path in sys.argv[1:]:
        problems.extend(check_render(path))
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return 1
    print(f"check-chart-policy: {len(sys.argv) - 1} render(s) pass")
    return 0


if __name__ == "__main__":
    sys.exit(main())
