/**
 * The 409 rule (docs/design/files.md#replace-guard): a second upload of the same kind (PDF or metadata) for the same
 * fileId that arrives while the first is still being received or processed, or within `fileReplaceGuardMs` after it was
 * accepted, is refused, because the latest version would be unclear. {@link UploadGuard} keeps it in memory, for the
 * one process of the embedded default; {@link SharedUploadGuard} keeps it in a store that many processes share.
 */
import type { UploadSlots } from '../../store/store.js';
import { ServiceError } from '../service-error.js';

/** What is uploaded. */
export type UploadKind = 'pdf' | 'metadata';

/** Ends an upload that {@link UploadGuards.begin} let through (never rejects). */
export type ReleaseUpload = (accepted: boolean, atMs: number) => void | Promise<void>;

/** The guard as the upload use case sees it. */
export interface UploadGuards {
  /** @throws ServiceError `UPLOAD_CONFLICT` (409). */
  begin(transactionId: string, fileId: string, kind: UploadKind, nowMs: number): ReleaseUpload | Promise<ReleaseUpload>;
}

function conflict(fileId: string, kind: UploadKind): ServiceError {
  return new ServiceError(
    'UPLOAD_CONFLICT',
    `The ${kind === 'pdf' ? 'PDF' : 'metadata'} of file ${JSON.stringify(fileId)} was uploaded again within too short an interval; the latest version is unclear. Wait and upload it once more.`,
  );
}

/** Tracks uploads per transaction, fileId and kind. */
export class UploadGuard implements UploadGuards {
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
    if (this.#busy.has(key) || (last !== undefined && nowMs - last < this.windowMs)) throw conflict(fileId, kind);
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

/**
 * How long a slot stays taken by an upload whose process died while receiving it. A live upload renews its lease
 * every third of it, however long it takes, so the lease only needs to outlast a renewal that is late.
 */
const SHARED_LEASE_MS = 30_000;

/** The guard in the store that every process of a deployment shares (docs/design/storage.md#scale-out). */
export class SharedUploadGuard implements UploadGuards {
  constructor(
    private readonly slots: UploadSlots,
    private readonly windowMs: number,
    private readonly newClaim: () => string,
    private readonly leaseMs = SHARED_LEASE_MS,
  ) {}

  async begin(transactionId: string, fileId: string, kind: UploadKind, nowMs: number): Promise<ReleaseUpload> {
    const slot = { transactionId, fileId, kind };
    const claim = this.newClaim();
    if (!(await this.slots.claim(slot, claim, nowMs, this.windowMs, this.leaseMs))) throw conflict(fileId, kind);
    // Renewals count real time from the claim: the service clock given here may be a frozen one.
    const claimedAt = performance.now();
    const renewal = setInterval(() => {
      this.slots.renew(slot, claim, nowMs + Math.round(performance.now() - claimedAt), this.leaseMs).catch(() => undefined);
    }, Math.max(10, Math.floor(this.leaseMs / 3)));
    renewal.unref();
    // Awaited before the answer, so that the next upload, on any process, sees it; a failed release leaves the slot
    // taken until the lease ends (a 409 too many, never one too few).
    return (accepted, atMs) => {
      clearInterval(renewal);
      return this.slots.release(slot, claim, accepted, atMs).catch(() => undefined);
    };
  }
}
