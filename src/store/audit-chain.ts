/** The stores' side of the audit chain: the one chain rule of src/receipt/audit-log.ts, with a store's error origin. */
import { chainAuditEntries, type AuditEntry } from '../receipt/audit-log.js';
import { ParaphError } from '../errors.js';
import type { AuditEntryInput } from './store.js';

/**
 * The entries following `last` for `inputs`. A time running backwards inside a commit is the service's fault, not
 * the client's, so it is reported as an internal error.
 */
export function chainStoredAudit(last: AuditEntry | undefined, inputs: readonly AuditEntryInput[]): AuditEntry[] {
  try {
    return chainAuditEntries(last, inputs);
  } catch (error) {
    if (error instanceof ParaphError && error.code === 'AUDIT_INVALID_TIME') {
      throw new ParaphError(error.code, error.message, { origin: 'internal', cause: error });
    }
    throw error;
  }
}
