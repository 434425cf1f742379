#!/usr/bin/env bash
# Checks the deployment files the way CI does (called by .ci/run; run it by hand the same way):
#   1. helm lint --strict, for the default values, deploy/helm/values-production.yaml and
#      deploy/ci/values-other-branches.yaml;
#   2. values.schema.json rejects a misspelt value (so the schema is really in force);
#   3. helm template for each, every render validated with kubeconform -strict against JSON
#      schemas generated from the Kubernetes OpenAPI document (any invalid object, or any
#      kind without a schema, fails), and the first two by check-chart-policy.py (every
#      object present; security contexts, probes, credentials from Secrets, selectors,
#      NetworkPolicies), and each component's settings by its service's config schema
#      (check-chart-settings.cjs, when the services are built);
#   4. NOTES.txt renders for each;
#   5. docker-compose.yml against the Compose specification's JSON schema.
#
# Installs what is missing, idempotently, into ~/.cache/affiliate-infra (AFF_INFRA_HOME):
# helm and kubeconform built with `go install`, the Kubernetes OpenAPI document from the
# k8s.io/kubernetes Go module (turned into per-kind schemas by openapi2jsonschema.cjs), the
# Compose schema from the compose-go Go module, and PyYAML + jsonschema (a venv, only when the
# python3 on PATH lacks them). Everything comes from the Go module proxy and PyPI.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CACHE="${AFF_INFRA_HOME:-$HOME/.cache/affiliate-infra}"
BIN="$CACHE/bin"

# Pins. KUBERNETES_VERSION is the API the renders are validated against.
HELM_VERSION="v3.22.0"
KUBECONFORM_VERSION="v0.8.0"
KUBERNETES_VERSION="v1.34.4"
COMPOSE_GO_VERSION="v2.16.2"
PY_REQUIREMENTS=("jsonschema==4.26.0" "PyYAML==6.0.3")

CHART="$ROOT/deploy/helm/affiliate-platform"
PROD_VALUES="$ROOT/deploy/helm/values-production.yaml"
COMPOSE="$ROOT/docker-compose.yml"

say() { echo "check-deploy: $*"; }
die() {
  echo "check-deploy: ERROR: $*" >&2
  exit 1
}

# A step's own output is shown only if it fails.
quiet() {
  local out rc=0
  out="$(mktemp)"
  "$@" >"$out" 2>&1 || rc=$?
  [ "$rc" -eq 0 ] || cat "$out" >&2
  rm -f "$out"
  return "$rc"
}

mkdir -p "$BIN"
command -v go >/dev/null 2>&1 || die "Go is required (helm, kubeconform and the schemas come from the Go module proxy)"
command -v node >/dev/null 2>&1 || die "node is required"
command -v python3 >/dev/null 2>&1 || die "python3 is required"

# --- tools ----------------------------------------------------------------------------------
# `go version -m` reads the module version baked into the binary, so a stale build is replaced.
go_tool() {
  local name="$1" module="$2" package="$3" version="$4"
  if [ -x "$BIN/$name" ] && go version -m "$BIN/$name" 2>/dev/null | grep -qE "^[[:space:]]+mod[[:space:]]+$module[[:space:]]+$version([[:space:]]|$)"; then
    return 0
  fi
  say "building $name $version with go install (the first time takes a few minutes)"
  GOBIN="$BIN" GOFLAGS=-buildvcs=false quiet go install "$package@$version" || die "go install $package@$version failed"
}
go_tool helm helm.sh/helm/v3 helm.sh/helm/v3/cmd/helm "$HELM_VERSION"
go_tool kubeconform github.com/yannh/kubeconform github.com/yannh/kubeconform/cmd/kubeconform "$KUBECONFORM_VERSION"
HELM="$BIN/helm"
KUBECONFORM="$BIN/kubeconform"

# Directory of a Go module version in the module cache, downloading it when missing.
module_dir() {
  local json
  json="$(cd "$CACHE" && go mod download -json "$1@$2" 2>&1)" || {
    echo "$json" >&2
    die "go mod download $1@$2 failed"
  }
  echo "$json" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p'
}

# --- Kubernetes schemas -----------------------------------------------------------------------
# Keyed by the Kubernetes version and the converter's content: changing either regenerates.
CONVERTER="$ROOT/deploy/ci/openapi2jsonschema.cjs"
SCHEMA_KEY="$KUBERNETES_VERSION-$(sha256sum "$CONVERTER" | cut -c1-12)"
SCHEMAS="$CACHE/k8s-schemas/$SCHEMA_KEY"
if [ ! -f "$SCHEMAS/.complete" ]; then
  say "generating Kubernetes $KUBERNETES_VERSION JSON schemas"
  K8S_DIR="$(module_dir k8s.io/kubernetes "$KUBERNETES_VERSION")"
  [ -f "$K8S_DIR/api/openapi-spec/swagger.json" ] || die "no api/openapi-spec/swagger.json in $K8S_DIR"
  rm -rf "$SCHEMAS.tmp"
  quiet node "$CONVERTER" "$K8S_DIR/api/openapi-spec/swagger.json" "$SCHEMAS.tmp" || die "schema generation failed"
  rm -rf "$SCHEMAS" && mv "$SCHEMAS.tmp" "$SCHEMAS" && touch "$SCHEMAS/.complete"
  # Sets of older pins or converters are never read again.
  find "$CACHE/k8s-schemas" -mindepth 1 -maxdepth 1 ! -name "$SCHEMA_KEY" -exec rm -rf {} +
fi

# --- Compose schema -------------------------------------------------------------------------
COMPOSE_SCHEMA="$(module_dir github.com/compose-spec/compose-go/v2 "$COMPOSE_GO_VERSION")/schema/compose-spec.json"
[ -f "$COMPOSE_SCHEMA" ] || die "no schema/compose-spec.json in compose-go $COMPOSE_GO_VERSION"

# --- Python with PyYAML and jsonschema (draft 2020-12) ---------------------------------------
PY_CHECK='import yaml; from jsonschema import Draft202012Validator'
PYTHON=python3
if ! python3 -c "$PY_CHECK" >/dev/null 2>&1; then
  VENV="$CACHE/deploy-ci-venv"
  if ! "$VENV/bin/python" -c "$PY_CHECK" >/dev/null 2>&1; then
    say "installing ${PY_REQUIREMENTS[*]} into $VENV"
    rm -rf "$VENV"
    quiet python3 -m venv "$VENV" || die "python3 -m venv failed (Debian: apt-get install python3-venv)"
    quiet "$VENV/bin/pip" install --quiet --disable-pip-version-check "${PY_REQUIREMENTS[@]}" || die "pip install failed"
  fi
  PYTHON="$VENV/bin/python"
fi

# --- checks ---------------------------------------------------------------------------------
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
failures=()
fail() {
  echo "check-deploy: FAILED: $*" >&2
  failures+=("$1")
}

# "other" takes the templates' remaining branches; the policy check is for real deployments only.
declare -A RENDERS=([default]="" [production]="$PROD_VALUES" [other]="$ROOT/deploy/ci/values-other-branches.yaml")
for render in default production other; do
  values=()
  [ -n "${RENDERS[$render]}" ] && values=(-f "${RENDERS[$render]}")
  out="$WORK/$render.yaml"
  say "chart with ${RENDERS[$render]:-the default values}"

  quiet "$HELM" lint --strict "$CHART" "${values[@]}" || fail "helm lint --strict ($render values)"

  if ! "$HELM" template platform "$CHART" --namespace affiliates "${values[@]}" >"$out" 2>"$WORK/err"; then
    cat "$WORK/err" >&2
    fail "helm template ($render values)"
    continue
  fi
  [ -s "$out" ] || fail "helm template ($render values) rendered nothing"

  "$KUBECONFORM" -strict -summary -n 2 \
    -schema-location "$SCHEMAS/{{ .ResourceKind }}{{ .KindSuffix }}.json" "$out" \
    || fail "kubeconform -strict ($render values, Kubernetes $KUBERNETES_VERSION)"

  if [ "$render" != other ]; then
    "$PYTHON" "$ROOT/deploy/ci/check-chart-policy.py" "$out" || fail "chart policy ($render values)"
  fi

  # Each component's ConfigMap against its service's own config schema (needs the build).
  "$PYTHON" -c '
import json, sys, yaml
objects = [o for o in yaml.safe_load_all(open(sys.argv[1])) if o and o["kind"] == "ConfigMap"]
print(json.dumps({o["metadata"]["labels"]["app.kubernetes.io/component"]: o.get("data", {}) for o in objects}))
' "$out" >"$WORK/$render-settings.json"
  node "$ROOT/deploy/ci/check-chart-settings.cjs" "$WORK/$render-settings.json" \
    || fail "component settings ($render values)"

  # NOTES.txt is only rendered by install/upgrade; render it here through tpl in a copy.
  notes_chart="$WORK/notes-chart"
  rm -rf "$notes_chart" && cp -r "$CHART" "$notes_chart"
  mv "$notes_chart/templates/NOTES.txt" "$notes_chart/notes.txt"
  printf 'notes: |\n{{ tpl (.Files.Get "notes.txt") . | indent 2 }}\n' >"$notes_chart/templates/zz-notes.yaml"
  quiet "$HELM" template platform "$notes_chart" --namespace affiliates "${values[@]}" \
    --show-only templates/zz-notes.yaml || fail "NOTES.txt ($render values)"
done

# The values schema is in force: a misspelt key must be refused.
if "$HELM" template platform "$CHART" --set components.gateway.replica=3 >/dev/null 2>&1; then
  fail "values.schema.json accepted components.gateway.replica (a typo of replicas)"
fi
# NATS_URL takes a list of seeds, and so does the chart; anything but nats:// or tls:// is refused.
"$HELM" template platform "$CHART" --set 'nats.url=nats://a:4222\,tls://b:4222' >/dev/null \
  || fail "values.schema.json refused a comma-separated list of NATS seeds"
if "$HELM" template platform "$CHART" --set 'nats.url=http://nats:4222' >/dev/null 2>&1; then
  fail "values.schema.json accepted an http:// URL for NATS"
fi

"$PYTHON" "$ROOT/deploy/ci/validate-compose.py" "$COMPOSE_SCHEMA" "$COMPOSE" \
  || fail "docker-compose.yml against the Compose specification schema"

if [ "${#failures[@]}" -gt 0 ]; then
  say "${#failures[@]} check(s) failed: $(IFS=';'; echo "${failures[*]}")"
  exit 1
fi
say "chart and compose file are valid (helm $HELM_VERSION, kubeconform $KUBECONFORM_VERSION, Kubernetes $KUBERNETES_VERSION schemas, compose-go $COMPOSE_GO_VERSION)"
