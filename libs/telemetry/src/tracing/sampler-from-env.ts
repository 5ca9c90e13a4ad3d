import { diag } from '@opentelemetry/api';
import { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler, type Sampler } from '@opentelemetry/sdk-trace';

/**
 * The sampler `OTEL_TRACES_SAMPLER` / `OTEL_TRACES_SAMPLER_ARG` name, read from `env` the way the
 * OpenTelemetry SDK reads them (`always_on`, `always_off`, `traceidratio`, and their
 * `parentbased_*` forms; unset or unknown: `parentbased_always_on`, the SDK's default; a missing
 * or out-of-range ratio: 1). Built here rather than left to the SDK so the process holds the
 * instance its tracer provider uses: ingress asks it for a root's decision before building any
 * span ({@link decideDerivedRoot}). Stateless: a restart builds the same sampler from the same
 * environment, and the ratio samplers decide by trace id alone, so a redelivered message that
 * roots a derived trace gets the decision of its first delivery.
 */
export function samplerFromEnv(env: Readonly<Record<string, string | undefined>>): Sampler {
  const name = (env.OTEL_TRACES_SAMPLER ?? '').trim().toLowerCase();
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratioFromEnv(env));
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratioFromEnv(env)) });
    case '':
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    default:
      diag.error(`unknown OTEL_TRACES_SAMPLER value "${name}", using parentbased_always_on`);
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

function ratioFromEnv(env: Readonly<Record<string, string | undefined>>): number {
  const raw = (env.OTEL_TRACES_SAMPLER_ARG ?? '').trim();
  const ratio = raw === '' ? Number.NaN : Number(raw);
  if (Number.isNaN(ratio)) {
    diag.error(`OTEL_TRACES_SAMPLER_ARG is blank or not a number ('${raw}'), defaulting to 1.`);
    return 1;
  }
  if (ratio < 0 || ratio > 1) {
    diag.error(`OTEL_TRACES_SAMPLER_ARG=${ratio} was given, but it is out of range ([0..1]), defaulting to 1.`);
    return 1;
  }
  return ratio;
}
