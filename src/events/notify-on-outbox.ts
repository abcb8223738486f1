/**
 * A store view that calls back after every commit that enqueued outbox rows, so that the in-process event worker
 * starts delivering at once instead of at its next poll (the latency from a status change to its postback,
 * docs/design/events.md#outbox). Other processes sharing the store still find the rows by polling.
 */
import type { Store, TransactionChange } from '../store/store.js';

/** `store`, with `onOutbox()` called after each commit that wrote outbox rows. */
export function notifyOnOutbox(store: Store, onOutbox: () => void): Store {
  return new Proxy(store, {
    get(target, property) {
      if (property === 'commit') {
        return async (change: TransactionChange) => {
          const stored = await target.commit(change);
          if ((change.outbox?.length ?? 0) > 0) onOutbox();
          return stored;
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
