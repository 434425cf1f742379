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

{{/*
One infrastructure URL as an EnvVar, from a Secret key when existingSecret is set, else from url.
Call with (dict "env" "MONGO_URL" "cfg" .Values.mongodb "what" "mongodb").
*/}}
{{- define "affiliate-platform.urlEnv" -}}
- name: {{ .env }}
{{- if .cfg.existingSecret }}
  valueFrom:
    secretKeyRef:
      name: {{ .cfg.existingSecret }}
      key: {{ required (printf "%s.existingSecretKey is required with %s.existingSecret" .what .what) .cfg.existingSecretKey }}
{{- else }}
  value: {{ required (printf "%s.url (or %s.existingSecret) is required" .what .what) .cfg.url | quote }}
{{- end }}
{{- end }}

{{/* Port name and number of a component's /healthz and /readyz. Call with the component. */}}
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
{{- end }}
