{{/*
Shared helpers of the nats-agents chart: names, labels, the image, the per-service runtime
config file, secret mounts, environment, security contexts, derived grace periods and the
consistency checks that a JSON schema cannot express (they `fail` with the offending keys).
*/}}

{{/* The chart name, overridable. */}}
{{- define "nats-agents.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The release-qualified name every resource starts with. */}}
{{- define "nats-agents.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The name of one component's resources: (dict "root" $ "name" "activator"). */}}
{{- define "nats-agents.componentFullname" -}}
{{- printf "%s-%s" (include "nats-agents.fullname" .root) .name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
The four services, in start order of a fresh cluster: `key` is the values key, `name` the app
directory under dist/apps and the component label.
*/}}
{{- define "nats-agents.components" -}}
- { key: ingress, name: ingress }
- { key: activator, name: activator }
- { key: effector, name: effector }
- { key: memoryStore, name: memory-store }
{{- end -}}

{{/* Labels on every resource. */}}
{{- define "nats-agents.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ include "nats-agents.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: nats-agents
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Selector labels of one component: (dict "root" $ "name" "activator"). */}}
{{- define "nats-agents.selectorLabels" -}}
app.kubernetes.io/name: {{ include "nats-agents.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{/* Labels of one component's resources. */}}
{{- define "nats-agents.componentLabels" -}}
{{ include "nats-agents.labels" .root }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{/* The ServiceAccount every pod runs as. */}}
{{- define "nats-agents.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "nats-agents.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* An image reference from { repository, tag, digest }: (dict "image" .Values.image "default" .Chart.AppVersion). */}}
{{- define "nats-agents.imageRef" -}}
{{- if .image.digest -}}
{{- printf "%s@%s" .image.repository .image.digest -}}
{{- else -}}
{{- printf "%s:%s" .image.repository (default .default .image.tag) -}}
{{- end -}}
{{- end -}}

{{/* Where secret files are mounted. */}}
{{- define "nats-agents.secretsDir" -}}/var/run/secrets/nats-agents{{- end -}}

{{/* Where the runtime config file is mounted; AGENTS_CONFIG points at it. */}}
{{- define "nats-agents.configPath" -}}/etc/nats-agents/config.yaml{{- end -}}

{{/*
The NATS credential of a service as YAML { method, secretName, secretKey }: nats.auth with the
service's `natsAuth` override (a Secret of the same method). (dict "root" $ "override" .natsAuth)
*/}}
{{- define "nats-agents.natsAuth" -}}
{{- $auth := .root.Values.nats.auth -}}
{{- $override := .override | default dict -}}
{{- $defaultKeys := dict "none" "" "creds" "nats.creds" "nkey" "nkey.seed" "token" "token" -}}
{{- $secretName := default $auth.secretName $override.secretName -}}
{{- $secretKey := default (default (get $defaultKeys $auth.method) $auth.secretKey) $override.secretKey -}}
{{- if and (eq $auth.method "none") $override.secretName -}}
{{- fail "natsAuth overrides name a Secret of nats.auth.method, which is none: set nats.auth.method to creds, nkey or token" -}}
{{- end -}}
method: {{ $auth.method }}
secretName: {{ $secretName | quote }}
secretKey: {{ $secretKey | quote }}
{{- end -}}

{{/*
The runtime config file of one service (YAML), from `config` plus what the chart manages: the
NATS connection and the paths of the secret files this service mounts, its modules and, for
ingress, the listener. Each service gets only the secrets it uses.
(dict "root" $ "name" "activator" "natsAuth" .Values.activator.natsAuth)
*/}}
{{- define "nats-agents.runtimeConfig" -}}
{{- $v := .root.Values -}}
{{- $dir := include "nats-agents.secretsDir" .root -}}
{{- $cfg := dict "prefix" $v.config.prefix "partitions" $v.config.partitions -}}
{{- range $section := list "streams" "activator" "isolation" "ingress" "effector" "longterm" -}}
{{- if hasKey $v.config $section -}}
{{- $_ := set $cfg $section (deepCopy (get $v.config $section)) -}}
{{- end -}}
{{- end -}}
{{- $nats := dict "url" $v.nats.url "requestTimeoutMs" $v.nats.requestTimeoutMs -}}
{{- $auth := include "nats-agents.natsAuth" (dict "root" .root "override" .natsAuth) | fromYaml -}}
{{- $authFile := printf "%s/nats-auth/%s" $dir $auth.secretKey -}}
{{- if eq $auth.method "creds" -}}{{- $_ := set $nats "credsFile" $authFile -}}
{{- else if eq $auth.method "nkey" -}}{{- $_ := set $nats "nkeySeedFile" $authFile -}}
{{- else if eq $auth.method "token" -}}{{- $_ := set $nats "tokenFile" $authFile -}}
{{- end -}}
{{- if $v.nats.tls.enabled -}}
{{- $tls := dict "caFile" (printf "%s/nats-tls/%s" $dir $v.nats.tls.caKey) -}}
{{- if $v.nats.tls.clientCertificate -}}
{{- $_ := set $tls "certFile" (printf "%s/nats-tls/%s" $dir $v.nats.tls.certKey) -}}
{{- $_ := set $tls "keyFile" (printf "%s/nats-tls/%s" $dir $v.nats.tls.keyKey) -}}
{{- end -}}
{{- $_ := set $nats "tls" $tls -}}
{{- end -}}
{{- $_ := set $cfg "nats" $nats -}}
{{- if hasKey $v.ops "lagSampleMs" -}}
{{- $_ := set $cfg "ops" (dict "lagSampleMs" $v.ops.lagSampleMs) -}}
{{- end -}}
{{- if or (eq .name "ingress") (eq .name "activator") -}}
{{- $_ := set $cfg "agentModules" ($v.agents.modules | default list) -}}
{{- end -}}
{{- if eq .name "ingress" -}}
{{- $ingress := get $cfg "ingress" | default dict -}}
{{- $_ := set $ingress "httpHost" "0.0.0.0" -}}
{{- $_ := set $ingress "httpPort" $v.ingress.httpPort -}}
{{- $_ := set $cfg "ingress" $ingress -}}
{{- $auth := deepCopy ($v.config.auth | default dict) -}}
{{- if $v.secrets.apiKeys.secretName -}}
{{- $_ := set $auth "apiKeysFile" (printf "%s/api-keys/%s" $dir $v.secrets.apiKeys.key) -}}
{{- end -}}
{{- if $auth.jwt -}}
{{- if $v.secrets.jwtSecret.secretName -}}
{{- $_ := set $auth.jwt "secretFile" (printf "%s/jwt-secret/%s" $dir $v.secrets.jwtSecret.key) -}}
{{- else if $v.secrets.jwtPublicKey.secretName -}}
{{- $_ := set $auth.jwt "publicKeyFile" (printf "%s/jwt-public-key/%s" $dir $v.secrets.jwtPublicKey.key) -}}
{{- end -}}
{{- end -}}
{{- $_ := set $cfg "auth" $auth -}}
{{- end -}}
{{- if eq .name "activator" -}}
{{- $_ := set $cfg "model" (include "nats-agents.modelConfig" .root | fromYaml) -}}
{{- end -}}
{{- if eq .name "effector" -}}
{{- $effector := get $cfg "effector" | default dict -}}
{{- $_ := set $effector "toolModules" ($v.agents.toolModules | default list) -}}
{{- $_ := set $cfg "effector" $effector -}}
{{- end -}}
{{- /* The cluster keys (docs/decisions/0058): the services that sign or verify get the key id and the keyring. */ -}}
{{- if has .name (list "activator" "effector" "ingress" "console") -}}
{{- $signing := dict -}}
{{- if and $v.config.signing $v.config.signing.keyId -}}
{{- $_ := set $signing "keyId" $v.config.signing.keyId -}}
{{- end -}}
{{- if and (eq .name "activator") $v.secrets.signingKey.secretName -}}
{{- $_ := set $signing "keyFile" (printf "%s/signing-key/%s" $dir $v.secrets.signingKey.key) -}}
{{- end -}}
{{- if $v.secrets.keyring.secretName -}}
{{- $_ := set $signing "keyringFile" (printf "%s/keyring/%s" $dir $v.secrets.keyring.key) -}}
{{- end -}}
{{- if $signing -}}
{{- $_ := set $cfg "signing" $signing -}}
{{- end -}}
{{- end -}}
{{- toYaml $cfg -}}
{{- end -}}

{{/* The runtime's `model` section from config.model: the chosen provider's settings only. */}}
{{- define "nats-agents.modelConfig" -}}
{{- $m := .Values.config.model -}}
{{- if eq $m.provider "openai-compatible" -}}
{{- $model := deepCopy ($m.openaiCompatible | default dict) -}}
{{- $_ := set $model "provider" "openai-compatible" -}}
{{- if .Values.secrets.modelApiKey.secretName -}}
{{- $_ := set $model "apiKeyFile" (printf "%s/model-api-key/%s" (include "nats-agents.secretsDir" .) .Values.secrets.modelApiKey.key) -}}
{{- end -}}
{{- toYaml $model -}}
{{- else -}}
provider: fake
{{- with ($m.fake | default dict).script }}
script: {{ . }}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Whether a service loads agent or tool modules (and so mounts the agents volume): (dict "name" ...). */}}
{{- define "nats-agents.usesModules" -}}
{{- if has .name (list "ingress" "activator" "effector") -}}true{{- end -}}
{{- end -}}

{{/* The restricted container securityContext every runtime container gets. */}}
{{- define "nats-agents.containerSecurityContext" -}}
runAsNonRoot: true
runAsUser: {{ .Values.securityContext.runAsUser }}
runAsGroup: {{ .Values.securityContext.runAsGroup }}
readOnlyRootFilesystem: true
allowPrivilegeEscalation: false
capabilities:
  drop: ["ALL"]
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* The pod securityContext of runtime pods. */}}
{{- define "nats-agents.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: {{ .Values.securityContext.runAsUser }}
runAsGroup: {{ .Values.securityContext.runAsGroup }}
fsGroup: {{ .Values.securityContext.fsGroup }}
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/*
Volumes of a runtime pod: its config file, /tmp, and the Secrets it uses as files.
(dict "root" $ "name" "activator" "natsAuth" ... "configMap" "<name>" "configKey" "activator.yaml" "extraVolumes" [...])
*/}}
{{- define "nats-agents.podVolumes" -}}
{{- $v := .root.Values -}}
{{- $auth := include "nats-agents.natsAuth" (dict "root" .root "override" .natsAuth) | fromYaml -}}
- name: config
  configMap:
    name: {{ .configMap }}
    items:
      - key: {{ .configKey }}
        path: config.yaml
- name: tmp
  emptyDir:
    sizeLimit: 64Mi
{{- if ne $auth.method "none" }}
- name: nats-auth
  secret:
    secretName: {{ $auth.secretName }}
    defaultMode: 288  # 0440: owner and group (fsGroup) read
    items:
      - key: {{ $auth.secretKey }}
        path: {{ $auth.secretKey }}
{{- end }}
{{- if $v.nats.tls.enabled }}
- name: nats-tls
  secret:
    secretName: {{ $v.nats.tls.secretName }}
    defaultMode: 288  # 0440: owner and group (fsGroup) read
    items:
      - key: {{ $v.nats.tls.caKey }}
        path: {{ $v.nats.tls.caKey }}
      {{- if $v.nats.tls.clientCertificate }}
      - key: {{ $v.nats.tls.certKey }}
        path: {{ $v.nats.tls.certKey }}
      - key: {{ $v.nats.tls.keyKey }}
        path: {{ $v.nats.tls.keyKey }}
      {{- end }}
{{- end }}
{{- if and (eq .name "activator") $v.secrets.modelApiKey.secretName }}
{{- include "nats-agents.secretFileVolume" (dict "volume" "model-api-key" "ref" $v.secrets.modelApiKey) }}
{{- end }}
{{- if and (eq .name "activator") $v.secrets.signingKey.secretName }}
{{- include "nats-agents.secretFileVolume" (dict "volume" "signing-key" "ref" $v.secrets.signingKey) }}
{{- end }}
{{- if and (has .name (list "activator" "effector" "ingress" "console")) $v.secrets.keyring.secretName }}
{{- include "nats-agents.secretFileVolume" (dict "volume" "keyring" "ref" $v.secrets.keyring) }}
{{- end }}
{{- if eq .name "ingress" }}
{{- range $volume, $ref := dict "api-keys" $v.secrets.apiKeys "jwt-secret" $v.secrets.jwtSecret "jwt-public-key" $v.secrets.jwtPublicKey }}
{{- if $ref.secretName }}
{{- include "nats-agents.secretFileVolume" (dict "volume" $volume "ref" $ref) }}
{{- end }}
{{- end }}
{{- end }}
{{- if and (eq .name "memory-store") $v.secrets.googleCredentials.secretName }}
{{- include "nats-agents.secretFileVolume" (dict "volume" "google-credentials" "ref" $v.secrets.googleCredentials) }}
{{- end }}
{{- if and (include "nats-agents.usesModules" .) $v.agents.volume.enabled }}
- name: agents
  {{- if $v.agents.volume.configMap }}
  configMap:
    name: {{ $v.agents.volume.configMap.name }}
  {{- else if $v.agents.volume.image }}
  emptyDir:
    sizeLimit: 256Mi
  {{- else }}
  {{- toYaml $v.agents.volume.volumeSource | nindent 2 }}
  {{- end }}
{{- end }}
{{- with .extraVolumes }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* One Secret key mounted as a file: (dict "volume" "keyring" "ref" { secretName, key }). */}}
{{- define "nats-agents.secretFileVolume" }}
- name: {{ .volume }}
  secret:
    secretName: {{ .ref.secretName }}
    defaultMode: 288  # 0440: owner and group (fsGroup) read
    items:
      - key: {{ .ref.key }}
        path: {{ .ref.key }}
{{- end -}}

{{/* Volume mounts matching nats-agents.podVolumes (same dict). */}}
{{- define "nats-agents.volumeMounts" -}}
{{- $v := .root.Values -}}
{{- $dir := include "nats-agents.secretsDir" .root -}}
{{- $auth := include "nats-agents.natsAuth" (dict "root" .root "override" .natsAuth) | fromYaml -}}
- name: config
  mountPath: /etc/nats-agents
  readOnly: true
- name: tmp
  mountPath: /tmp
{{- if ne $auth.method "none" }}
- name: nats-auth
  mountPath: {{ $dir }}/nats-auth
  readOnly: true
{{- end }}
{{- if $v.nats.tls.enabled }}
- name: nats-tls
  mountPath: {{ $dir }}/nats-tls
  readOnly: true
{{- end }}
{{- if and (eq .name "activator") $v.secrets.modelApiKey.secretName }}
- name: model-api-key
  mountPath: {{ $dir }}/model-api-key
  readOnly: true
{{- end }}
{{- if and (eq .name "activator") $v.secrets.signingKey.secretName }}
- name: signing-key
  mountPath: {{ $dir }}/signing-key
  readOnly: true
{{- end }}
{{- if and (has .name (list "activator" "effector" "ingress" "console")) $v.secrets.keyring.secretName }}
- name: keyring
  mountPath: {{ $dir }}/keyring
  readOnly: true
{{- end }}
{{- if eq .name "ingress" }}
{{- range $volume, $ref := dict "api-keys" $v.secrets.apiKeys "jwt-secret" $v.secrets.jwtSecret "jwt-public-key" $v.secrets.jwtPublicKey }}
{{- if $ref.secretName }}
- name: {{ $volume }}
  mountPath: {{ $dir }}/{{ $volume }}
  readOnly: true
{{- end }}
{{- end }}
{{- end }}
{{- if and (eq .name "memory-store") $v.secrets.googleCredentials.secretName }}
- name: google-credentials
  mountPath: {{ $dir }}/google-credentials
  readOnly: true
{{- end }}
{{- if and (include "nats-agents.usesModules" .) $v.agents.volume.enabled }}
- name: agents
  mountPath: {{ $v.agents.volume.mountPath }}
  readOnly: true
{{- end }}
{{- with .extraVolumeMounts }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/*
Environment of a runtime container: the config file, the ops listener, tracing, the long-term
URI by reference, then the component's own plain and secret variables.
(dict "root" $ "name" "activator" "env" {...} "secretEnv" [...])
*/}}
{{- define "nats-agents.env" -}}
{{- $v := .root.Values -}}
- name: AGENTS_CONFIG
  value: {{ include "nats-agents.configPath" .root }}
- name: AGENTS_OPS_HOST
  value: "0.0.0.0"
- name: AGENTS_OPS_PORT
  value: {{ $v.ops.port | quote }}
- name: POD_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: POD_NAMESPACE
  valueFrom:
    fieldRef:
      fieldPath: metadata.namespace
{{- /* service.name stays the runtime's own (ingress, activator, ...), as in a local cluster. */}}
- name: OTEL_RESOURCE_ATTRIBUTES
  value: "service.namespace=$(POD_NAMESPACE),k8s.namespace.name=$(POD_NAMESPACE),k8s.pod.name=$(POD_NAME),service.instance.id=$(POD_NAME)"
{{- $endpoint := include "nats-agents.otlpEndpoint" .root }}
{{- if $endpoint }}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ $endpoint | quote }}
{{- else }}
- name: OTEL_SDK_DISABLED
  value: "true"
{{- end }}
- name: AGENTS_TRACE_STEPS
  value: {{ $v.tracing.steps | default "events" | quote }}
{{- range $name, $value := $v.tracing.extraEnv }}
- name: {{ $name }}
  value: {{ $value | quote }}
{{- end }}
{{- /* Only the memory-store opens the backend; activators learn the tier is on, never its credentials. */}}
{{- if and (eq .name "activator") $v.secrets.longtermUri.secretName }}
- name: AGENTS_LONGTERM_ENABLED
  value: "true"
{{- end }}
{{- if and (eq .name "memory-store") $v.secrets.longtermUri.secretName }}
- name: AGENTS_LONGTERM_URI
  valueFrom:
    secretKeyRef:
      name: {{ $v.secrets.longtermUri.secretName }}
      key: {{ $v.secrets.longtermUri.key }}
{{- end }}
{{- /* bigtable:// and firestore:// authenticate with Application Default Credentials: this key file, or workload identity. */}}
{{- if and (eq .name "memory-store") $v.secrets.googleCredentials.secretName }}
- name: GOOGLE_APPLICATION_CREDENTIALS
  value: {{ printf "%s/google-credentials/%s" (include "nats-agents.secretsDir" .root) $v.secrets.googleCredentials.key | quote }}
{{- end }}
{{- range $name, $value := .env }}
- name: {{ $name }}
  value: {{ $value | quote }}
{{- end }}
{{- range .secretEnv }}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ .secretName }}
      key: {{ .key }}
      {{- if .optional }}
      optional: true
      {{- end }}
{{- end }}
{{- end -}}

{{/* The OTLP/HTTP endpoint services export to: the chart's Jaeger, tracing.otlpEndpoint or none. */}}
{{- define "nats-agents.otlpEndpoint" -}}
{{- if .Values.jaeger.enabled -}}
{{- printf "http://%s:4318" (include "nats-agents.componentFullname" (dict "root" . "name" "jaeger")) -}}
{{- else -}}
{{- .Values.tracing.otlpEndpoint -}}
{{- end -}}
{{- end -}}

{{/* Ceiling of milliseconds in seconds. */}}
{{- define "nats-agents.ceilSeconds" -}}
{{- div (add (int64 .) 999) 1000 -}}
{{- end -}}

{{/*
A service's termination grace period: its longest unit of work plus terminationMarginSeconds, so
SIGTERM can drain it. An explicit value below that fails the render. (dict "root" $ "key" "activator")
*/}}
{{- define "nats-agents.terminationGrace" -}}
{{- $v := .root.Values -}}
{{- $c := get $v .key -}}
{{- $work := 0 -}}
{{- if eq .key "ingress" -}}
{{- $work = add (include "nats-agents.ceilSeconds" $v.nats.requestTimeoutMs) $c.preStopSleepSeconds -}}
{{- else if eq .key "activator" -}}
{{- $work = include "nats-agents.ceilSeconds" (default 30000 $v.config.activator.activationTimeoutMs) -}}
{{- else if eq .key "effector" -}}
{{- $work = include "nats-agents.ceilSeconds" (default 60000 $v.config.effector.toolTimeoutMs) -}}
{{- else -}}
{{- $work = include "nats-agents.ceilSeconds" (default 5000 $v.config.longterm.deadlineMs) -}}
{{- end -}}
{{- $minimum := add $work $v.terminationMarginSeconds -}}
{{- if $c.terminationGracePeriodSeconds -}}
{{- if lt (int64 $c.terminationGracePeriodSeconds) (int64 $minimum) -}}
{{- fail (printf "%s.terminationGracePeriodSeconds (%v) is shorter than the %v s the service needs to drain (its longest unit of work + terminationMarginSeconds)" .key $c.terminationGracePeriodSeconds $minimum) -}}
{{- end -}}
{{- int64 $c.terminationGracePeriodSeconds -}}
{{- else -}}
{{- $minimum -}}
{{- end -}}
{{- end -}}

{{/*
The replica count a PodDisruptionBudget must leave room in: the HPA's minimum when it scales the
service, else replicas. (dict "root" $ "key" "activator")
*/}}
{{- define "nats-agents.floorReplicas" -}}
{{- $c := get .root.Values .key -}}
{{- if and $c.autoscaling $c.autoscaling.enabled -}}
{{- int64 $c.autoscaling.minReplicas -}}
{{- else -}}
{{- int64 $c.replicas -}}
{{- end -}}
{{- end -}}

{{/* Cross-key checks the schema cannot express; each fails the render with the keys to fix. */}}
{{- define "nats-agents.validate" -}}
{{- $v := .Values -}}
{{- if and $v.config.signing $v.config.signing.keyId (not $v.secrets.signingKey.secretName) (not $v.secrets.keyring.secretName) -}}
{{- fail "config.signing.keyId is set but secrets.signingKey.secretName is empty: name the Secret holding the signing key" -}}
{{- end -}}
{{- if and $v.secrets.signingKey.secretName (not (and $v.config.signing $v.config.signing.keyId)) -}}
{{- fail "secrets.signingKey is set but config.signing.keyId is empty: intents are signed only with a key id" -}}
{{- end -}}
{{- if and (ne (default "off" $v.config.effector.verification) "off") (not $v.secrets.keyring.secretName) -}}
{{- fail (printf "config.effector.verification is %s but secrets.keyring.secretName is empty: the effector needs the keyring to verify intents" $v.config.effector.verification) -}}
{{- end -}}
{{- if and (ne (default "off" ($v.config.activator | default dict).verification) "off") (not $v.secrets.keyring.secretName) -}}
{{- fail (printf "config.activator.verification is %s but secrets.keyring.secretName is empty: the activator needs the keyring to verify results, approvals and timers" $v.config.activator.verification) -}}
{{- end -}}
{{- if and (or (ne (default "off" $v.config.effector.verification) "off") (ne (default "off" ($v.config.activator | default dict).verification) "off")) (not (and $v.config.signing $v.config.signing.keyId)) -}}
{{- fail "verification is on but config.signing.keyId is empty: name the keyring's active key, or nothing is signed and every intent, result and timer is refused" -}}
{{- end -}}
{{- if and $v.secrets.modelApiKey.secretName (eq $v.config.model.provider "fake") -}}
{{- fail "secrets.modelApiKey is set but config.model.provider is fake: set provider openai-compatible (and baseUrl) or drop the key" -}}
{{- end -}}
{{- $auth := $v.config.auth | default dict -}}
{{- $credentials := or $v.secrets.apiKeys.secretName $auth.apiKeys $auth.jwt -}}
{{- if and $v.ingress.kubernetesIngress.enabled (not $credentials) -}}
{{- fail "ingress.kubernetesIngress.enabled publishes the HTTP API, but no credential is configured: set secrets.apiKeys (API key digests) or config.auth.jwt, or every request is refused with 401 (docs/auth.md)" -}}
{{- end -}}
{{- if and (or $v.secrets.jwtSecret.secretName $v.secrets.jwtPublicKey.secretName) (not $auth.jwt) -}}
{{- fail "secrets.jwtSecret or secrets.jwtPublicKey is set but config.auth.jwt is not: set its issuer and audience" -}}
{{- end -}}
{{- if and $v.secrets.jwtSecret.secretName $v.secrets.jwtPublicKey.secretName -}}
{{- fail "set one of secrets.jwtSecret and secrets.jwtPublicKey, not both" -}}
{{- end -}}
{{- if and $v.secrets.jwtPublicKey.secretName $auth.jwt (not $auth.jwt.algorithm) -}}
{{- fail "secrets.jwtPublicKey needs config.auth.jwt.algorithm (RS256, ES256, EdDSA, …)" -}}
{{- end -}}
{{- if and $auth.jwt (not (or $auth.jwt.jwksUrl $v.secrets.jwtSecret.secretName $v.secrets.jwtPublicKey.secretName)) -}}
{{- fail "config.auth.jwt needs a key: jwksUrl, secrets.jwtSecret or secrets.jwtPublicKey" -}}
{{- end -}}
{{- range $key := list "activator" "effector" -}}
{{- $a := (get $v $key).autoscaling -}}
{{- if and $a.enabled (gt (int64 $a.minReplicas) (int64 $a.maxReplicas)) -}}
{{- fail (printf "%s.autoscaling.minReplicas (%v) exceeds maxReplicas (%v)" $key $a.minReplicas $a.maxReplicas) -}}
{{- end -}}
{{- end -}}
{{- $partitions := int64 $v.config.partitions -}}
{{- if gt (int64 $v.activator.replicas) $partitions -}}
{{- fail (printf "activator.replicas (%v) exceeds config.partitions (%v): an activator without a partition does no work" $v.activator.replicas $partitions) -}}
{{- end -}}
{{- if and $v.activator.autoscaling.enabled (gt (int64 $v.activator.autoscaling.maxReplicas) $partitions) -}}
{{- fail (printf "activator.autoscaling.maxReplicas (%v) exceeds config.partitions (%v): an activator without a partition does no work" $v.activator.autoscaling.maxReplicas $partitions) -}}
{{- end -}}
{{- range $c := include "nats-agents.components" . | fromYamlArray -}}
{{- $pdb := (get $v $c.key).podDisruptionBudget -}}
{{- if and $pdb.enabled (hasKey $pdb "minAvailable") -}}
{{- $floor := int64 (include "nats-agents.floorReplicas" (dict "root" $ "key" $c.key)) -}}
{{- $min := $pdb.minAvailable -}}
{{- $required := 0 -}}
{{- if kindIs "string" $min -}}
{{- $required = div (add (mul $floor (int64 (trimSuffix "%" $min))) 99) 100 -}}
{{- else -}}
{{- $required = int64 $min -}}
{{- end -}}
{{- if ge (int64 $required) $floor -}}
{{- fail (printf "%s.podDisruptionBudget.minAvailable (%v) keeps all %v replicas up, which blocks every eviction (node drains hang): lower it or use maxUnavailable" $c.key $min $floor) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The ops Services' /metrics URLs the console's agents view reads (every runtime service). */}}
{{- define "nats-agents.consoleMetricsTargets" -}}
{{- range $c := include "nats-agents.components" . | fromYamlArray }}
- {{ printf "http://%s-ops.%s.svc:%v/metrics" (include "nats-agents.componentFullname" (dict "root" $ "name" $c.name)) $.Release.Namespace $.Values.ops.port }}
{{- end }}
{{- end -}}
