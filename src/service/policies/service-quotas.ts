/**
 * The upload and account limits a use case applies when the context's settings give none. The
 * composition root's security defaults (config.ts) take theirs from here, so the two cannot drift apart.
 */
import type { ServiceQuotas, ServiceSettings } from '../context.js';

/** The default per-upload and per-account limits. */
export const DEFAULT_SERVICE_QUOTAS: ServiceQuotas = {
  maxPages: 5_000,
  accountStorageBytes: 10 * 1024 ** 3,
};

/** The limits of `settings`, with the defaults for what they leave out. */
export function serviceQuotas(settings: ServiceSettings): ServiceQuotas {
  return settings.quotas ?? DEFAULT_SERVICE_QUOTAS;
}
