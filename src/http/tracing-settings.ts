/**
 * Whether and where the server exports traces, from OpenTelemetry's standard variables (docs/operations.md#tracing).
 * Tracing is off unless asked for: `OTEL_TRACES_EXPORTER=otlp|console`, or an OTLP endpoint
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) with no exporter named. `OTEL_SDK_DISABLED=true`
 * and `OTEL_TRACES_EXPORTER=none` turn it off. This module loads no OpenTelemetry code: the server imports the SDK only
 * when this says tracing is on.
 */
import { ValidationError } from '../errors.js';

/** Exporters paraph can start. */
export type TraceExporterName = 'otlp' | 'console';


/**
 * The exporters to start, or undefined when tracing is off.
 *
 * @throws ValidationError `INVALID_CONFIG` for an exporter or protocol paraph cannot start.
 */
export function tracingExporters(env: Readonly<Record<string, string | undefined>>): readonly TraceExporterName[] | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const named = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  const endpoint = nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) ?? nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  const exporters: readonly string[] = named.length > 0 ? named : endpoint !== undefined ? ['otlp'] : [];
  if (exporters.length === 0 || exporters.includes('none')) return undefined;
  const unknown = exporters.filter((name) => name !== 'otlp' && name !== 'console');
  if (unknown.length > 0) {
    throw new ValidationError([`configuration: OTEL_TRACES_EXPORTER names ${unknown.join(', ')}: paraph exports traces with otlp (OTLP/HTTP protobuf) or console; use a collector to reach other backends.`], 'INVALID_CONFIG');
  }
  if (exporters.includes('otlp')) {
    for (const name of ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT'] as const) {
      const url = nonEmpty(env[name]);
      if (url !== undefined && !isHttpUrl(url)) {
        throw new ValidationError([`configuration: ${name} is ${url}: paraph exports traces to an http:// or https:// URL, e.g. http://otel-collector:4318.`], 'INVALID_CONFIG');
      }
    }
    const protocol = nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL) ?? nonEmpty(env.OTEL_EXPORTER_OTLP_PROTOCOL);
    if (protocol !== undefined && protocol !== 'http/protobuf') {
      throw new ValidationError([`configuration: OTEL_EXPORTER_OTLP_PROTOCOL is ${protocol}: paraph exports OTLP over HTTP with protobuf only; set it to http/protobuf or leave it unset.`], 'INVALID_CONFIG');
    }
  }
  return [...new Set(exporters)] as TraceExporterName[];
}

/** How traces are sampled (`OTEL_TRACES_SAMPLER`, `OTEL_TRACES_SAMPLER_ARG`): OpenTelemetry's standard samplers. */
export interface TraceSampling {
  /** A trace with a caller follows the caller's sampled flag (the `parentbased_*` samplers). */
  readonly followCaller: boolean;
  /** The share of new traces sampled: 1 for `always_on`, 0 for `always_off`, the argument for `traceidratio`. */
  readonly ratio: number;
}

const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'];

/**
 * The sampling `env` asks for; by default `parentbased_always_on` (every trace sampled, a caller's decision followed).
 *
 * @throws ValidationError `INVALID_CONFIG` for a sampler paraph does not know or a ratio outside 0..1.
 */
export function tracingSampler(env: Readonly<Record<string, string | undefined>>): TraceSampling {
  const name = nonEmpty(env.OTEL_TRACES_SAMPLER)?.toLowerCase() ?? 'parentbased_always_on';
  if (!SAMPLERS.includes(name)) {
    throw new ValidationError([`configuration: OTEL_TRACES_SAMPLER is ${name}: paraph samples traces with one of ${SAMPLERS.join(', ')}.`], 'INVALID_CONFIG');
  }
  const followCaller = name.startsWith('parentbased_');
  if (name.endsWith('always_on')) return { followCaller, ratio: 1 };
  if (name.endsWith('always_off')) return { followCaller, ratio: 0 };
  const argument = nonEmpty(env.OTEL_TRACES_SAMPLER_ARG);
  const ratio = argument === undefined ? 1 : Number(argument);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1) {
    throw new ValidationError([`configuration: OTEL_TRACES_SAMPLER_ARG is ${argument ?? ''}: the share of traces ${name} samples is a number from 0 to 1 (0.1 samples one trace in ten).`], 'INVALID_CONFIG');
  }
  return { followCaller, ratio };
}

function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
