/**
 * Use case of the garbage timer: blobs no transaction references (refused uploads, replaced or cleaned documents)
 * are deleted once they are older than `olderThan`.
 */
import type { ServiceContext } from './context.js';

/** Deletes the unreferenced blobs older than `olderThan`; returns how many. */
export function collectUnreferencedBlobs(ctx: ServiceContext, olderThan: Date): Promise<number> {
  return ctx.store.collectGarbage(olderThan);
}
