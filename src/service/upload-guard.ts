/**
 * The 409 rule of decisions.md §3: a second upload of the same kind (PDF or metadata) for the same fileId that
 * arrives while the first is still being received or processed, or within `fileReplaceGuardMs` after it was
 * accepted, is refused, because the latest version would be unclear. Kept in memory: it guards one process (the
 * embedded default); a scaled set-up needs it in the shared store.
 */
import { ServiceError } from './service-error.js';

/** What is uploaded. */
export type UploadKind = 'pdf' | 'metadata';

/** Tracks uploads per transaction, fileId and kind. */
export class UploadGuard {
  readonly #busy = new Set<string>();
  readonly #accepted = new Map<string, number>();

  constructor(private readonly windowMs: number) {}

  /**
   * Claims the slot for an upload at `nowMs`; call the returned `release(accepted)` when it ends.
   *
   * @throws ServiceError `UPLOAD_CONFLICT` (409).
   */
  begin(transactionId: string, fileId: string, kind: UploadKind, nowMs: number): (accepted: boolean, atMs: number) => void {
    const key = JSON.stringify([transactionId, fileId, kind]);
    const last = this.#accepted.get(key);
    if (this.#busy.has(key) || (last !== undefined && nowMs - last < this.windowMs)) {
      throw new ServiceError(
        'UPLOAD_CONFLICT',
        `The ${kind === 'pdf' ? 'PDF' : 'metadata'} of file ${JSON.stringify(fileId)} was uploaded again within too short an interval; the latest version is unclear. Wait and upload it once more.`,
      );
    }
    this.#busy.add(key);
    if (this.#accepted.size > 10_000) this.#prune(nowMs);
    return (accepted, atMs) => {
      this.#busy.delete(key);
      if (accepted) this.#accepted.set(key, atMs);
    };
  }

  #prune(nowMs: number): void {
    for (const [key, at] of this.#accepted) if (nowMs - at >= this.windowMs) this.#accepted.delete(key);
  }
}
