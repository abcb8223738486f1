/**
 * The outcome of delivering one outbox row, shared by the postback and mail deliverers and the worker
 * that records it as an attempt.
 */

/** Delivered, or failed (permanently: give up now; otherwise retry with backoff). */
export type DeliveryOutcome =
  | { readonly ok: true; readonly responseCode?: number; readonly detail?: string }
  | { readonly ok: false; readonly permanent: boolean; readonly responseCode?: number; readonly error: string };
