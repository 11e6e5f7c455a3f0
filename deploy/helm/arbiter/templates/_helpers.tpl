{{/* The policy files the release mounts at /etc/arbiter/rules: a shipped pack's, or the user's own; empty for none. */}}
{{- define "arbiter.policyFiles" -}}
{{- if .Values.policy.files -}}
{{- range $name, $content := .Values.policy.files }}
{{ $name | quote }}: {{ $content | quote }}
{{- end }}
{{- else if .Values.policy.pack -}}
{{- $glob := printf "policies/%s/*" .Values.policy.pack -}}
{{- $files := .Files.Glob $glob -}}
{{- if not $files -}}
{{- fail (printf "policy.pack: no pack %q in this chart (packs: capacity, drf, fair-usage, reservation); for your own pack set policy.files" .Values.policy.pack) -}}
{{- end -}}
{{- range $path, $_ := $files }}
{{ base $path | quote }}: {{ $.Files.Get $path | quote }}
{{- end }}
{{- end -}}
{{- end -}}

{{/* The shadow policy's files, mounted at /etc/arbiter/shadow-rules (run --shadow-rules): a shipped pack's, or the user's own; empty for none. */}}
{{- define "arbiter.shadowFiles" -}}
{{- if .Values.shadow.files -}}
{{- range $name, $content := .Values.shadow.files }}
{{ $name | quote }}: {{ $content | quote }}
{{- end }}
{{- else if .Values.shadow.pack -}}
{{- $glob := printf "policies/%s/*" .Values.shadow.pack -}}
{{- $files := .Files.Glob $glob -}}
{{- if not $files -}}
{{- fail (printf "shadow.pack: no pack %q in this chart (packs: capacity, drf, fair-usage); for your own pack set shadow.files" .Values.shadow.pack) -}}
{{- end -}}
{{- range $path, $_ := $files }}
{{ base $path | quote }}: {{ $.Files.Get $path | quote }}
{{- end }}
{{- end -}}
{{- end -}}
