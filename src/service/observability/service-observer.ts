/**
 * What the service reports for its metrics, without knowing how they are kept: the HTTP layer's Prometheus registry
 * (src/http/metrics.ts) implements it. Every method is optional to call and cheap; none may throw.
 */
import type { OutboxKind } from '../../store/store.js';

/** How one outbox delivery attempt ended (the attempt record's outcome). */
export type DeliveryAttemptOutcome = 'delivered' | 'retry' | 'failed';

/** Receives the service's countable events. */
export interface ServiceObserver {
  /**
   * One delivery attempt of an outbox row. `latencyMs`: from when the row first became due to its delivery, when it
   * was delivered.
   */
  deliveryAttempt(kind: OutboxKind, outcome: DeliveryAttemptOutcome, latencyMs?: number): void;
}
