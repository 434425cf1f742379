{{/* Chart name. */}}
{{- define "affiliate-platform.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Release-scoped name: <release>-<chart>, or the release alone when it already holds the chart name. */}}
{{- define "affiliate-platform.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "affiliate-platform.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Name of a component's Deployment and Service. Call with (dict "root" $ "name" $name). */}}
{{- define "affiliate-platform.componentName" -}}
{{- printf "%s-%s" (include "affiliate-platform.fullname" .root) .name | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Selector labels of a component. Call with (dict "root" $ "name" $name). */}}
{{- define "affiliate-platform.selectorLabels" -}}
app.kubernetes.io/name: {{ include "affiliate-platform.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .name }}
{{- end }}

{{/* All labels of a component's objects. Call with (dict "root" $ "name" $name). */}}
{{- define "affiliate-platform.labels" -}}
helm.sh/chart: {{ include "affiliate-platform.chart" .root }}
{{ include "affiliate-platform.selectorLabels" . }}
app.kubernetes.io/version: {{ include "affiliate-platform.imageTag" .root | quote }}
app.kubernetes.io/part-of: {{ include "affiliate-platform.name" .root }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
{{- end }}

{{- define "affiliate-platform.imageTag" -}}
{{- .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

{{- define "affiliate-platform.image" -}}
{{- printf "%s:%s" .Values.image.repository (include "affiliate-platform.imageTag" .) }}
{{- end }}

{{- define "affiliate-platform.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- .Values.serviceAccount.name | default (include "affiliate-platform.fullname" .) }}
{{- else }}
{{- .Values.serviceAccount.name | default "default" }}
{{- end }}
{{- end }}

{{/* The chart's own Secret: infrastructure URLs given as `url`, and secrets.extraEnv. */}}
{{- define "affiliate-platform.secretName" -}}
{{- printf "%s-credentials" (include "affiliate-platform.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Data of the chart's Secret as YAML (key: value), empty when nothing needs it: every
infrastructure URL without existingSecret (Redis only when an enabled component uses it), then
secrets.extraEnv under its variable names.
*/}}
{{- define "affiliate-platform.secretData" -}}
{{- $data := dict }}
{{- $redisUsed := false }}
{{- range $name, $c := .Values.components }}
{{- if and $c.enabled $c.useRedis }}{{ $redisUsed = true }}{{ end }}
{{- end }}
{{- range $what := list "mongodb" "nats" "redis" }}
{{- $cfg := index $.Values $what }}
{{- if and (not $cfg.existingSecret) (or (ne $what "redis") $redisUsed) }}
{{- $_ := set $data (printf "%s-url" $what) (required (printf "%s.url (or %s.existingSecret) is required" $what $what) $cfg.url | toString) }}
{{- end }}
{{- end }}
{{- range $k, $v := .Values.secrets.extraEnv }}
{{- $_ := set $data $k (toString $v) }}
{{- end }}
{{- if $data }}
{{- toYaml $data }}
{{- end }}
{{- end }}

{{/*
One infrastructure URL as an EnvVar read from a Secret: the existingSecret's key, or the
chart's Secret. Call with (dict "root" $ "env" "MONGO_URL" "what" "mongodb").
*/}}
{{- define "affiliate-platform.urlEnv" -}}
{{- $cfg := index .root.Values .what -}}
- name: {{ .env }}
  valueFrom:
    secretKeyRef:
{{- if $cfg.existingSecret }}
      name: {{ $cfg.existingSecret }}
      key: {{ required (printf "%s.existingSecretKey is required with %s.existingSecret" .what .what) $cfg.existingSecretKey }}
{{- else }}
      name: {{ include "affiliate-platform.secretName" .root }}
      key: {{ printf "%s-url" .what }}
{{- end }}
{{- end }}

{{/*
Plain settings of a component as YAML (its ConfigMap's data): chart defaults, then
telemetry.extraEnv, then the component's env; PORT / HEALTH_PORT always match the probe port.
Call with (dict "root" $ "name" $name "c" $c).
*/}}
{{- define "affiliate-platform.componentEnv" -}}
{{- $root := .root }}
{{- $c := .c }}
{{- $env := dict "LOG_LEVEL" (toString $root.Values.logLevel) "OTEL_SERVICE_NAME" .name "MONGO_DB" (toString ($c.mongoDb | default .name)) }}
{{- $_ := set $env "NATS_STREAM_REPLICAS" (toString ($root.Values.nats.streamReplicas | default 1)) }}
{{- $_ := set $env "PUBLIC_URL" (toString $root.Values.publicUrl) }}
{{- with $root.Values.telemetry.otlpEndpoint }}
{{- $_ := set $env "OTEL_EXPORTER_OTLP_ENDPOINT" (toString .) }}
{{- end }}
{{- range $k, $v := $root.Values.telemetry.extraEnv }}
{{- $_ := set $env $k (toString $v) }}
{{- end }}
{{- range $k, $v := $c.env }}
{{- $_ := set $env $k (toString $v) }}
{{- end }}
{{- if $c.port }}
{{- $_ := set $env "PORT" (toString $c.port) }}
{{- with $c.opsPort }}
{{- $_ := set $env "OPS_PORT" (toString .) }}
{{- end }}
{{- else }}
{{- $_ := set $env "HEALTH_PORT" (toString $c.healthPort) }}
{{- end }}
{{- toYaml $env }}
{{- end }}

{{/* Port name of a component's /healthz and /readyz. Call with the component. */}}
{{- define "affiliate-platform.probePortName" -}}
{{- if .port }}http{{ else }}health{{ end }}
{{- end }}

{{/* Fails rendering on a component that cannot work. Call with (dict "name" $name "c" $c). */}}
{{- define "affiliate-platform.validateComponent" -}}
{{- if and .c.port .c.healthPort }}
{{- fail (printf "components.%s: set either port (HTTP API) or healthPort, not both" .name) }}
{{- end }}
{{- if not (or .c.port .c.healthPort) }}
{{- fail (printf "components.%s: port or healthPort is required (probes use /healthz and /readyz on it)" .name) }}
{{- end }}
{{- if and .c.opsPort (not .c.port) }}
{{- fail (printf "components.%s: opsPort is for a component with port (an HTTP API); use healthPort" .name) }}
{{- end }}
{{- if and .c.opsPort (eq (toString .c.opsPort) (toString .c.port)) }}
{{- fail (printf "components.%s: opsPort must differ from port (metrics never on the public port)" .name) }}
{{- end }}
{{- if and .c.public (not .c.port) }}
{{- fail (printf "components.%s: public needs port (only an HTTP API takes outside traffic)" .name) }}
{{- end }}
{{- $hpa := .c.autoscaling | default dict }}
{{- if $hpa.enabled }}
{{- if not (or $hpa.targetCPUUtilizationPercentage $hpa.targetMemoryUtilizationPercentage) }}
{{- fail (printf "components.%s.autoscaling: set targetCPUUtilizationPercentage and/or targetMemoryUtilizationPercentage" .name) }}
{{- end }}
{{- $requests := (.c.resources | default dict).requests | default dict }}
{{- if and $hpa.targetCPUUtilizationPercentage (not $requests.cpu) }}
{{- fail (printf "components.%s: autoscaling on CPU needs resources.requests.cpu" .name) }}
{{- end }}
{{- if and $hpa.targetMemoryUtilizationPercentage (not $requests.memory) }}
{{- fail (printf "components.%s: autoscaling on memory needs resources.requests.memory" .name) }}
{{- end }}
{{- end }}
{{- end }}
