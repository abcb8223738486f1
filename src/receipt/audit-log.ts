/**
 * The tamper-evident audit trail of a signing transaction (docs/design/receipt.md#audit-log): an append-only list of
 * entries, each carrying the SHA-256 of the canonical JSON of itself (without `hash`) including the hash of the
 * entry before it, so that changing, removing, inserting or reordering any entry breaks the chain where it happened.
 * Pure: the caller hands in the time of every entry; nothing here reads a clock.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';
import { ParaphError } from '../errors.js';

/** `prevHash` of the first entry: 64 zeros. */
export const GENESIS_HASH = '0'.repeat(64);

/** Who caused an event: the service itself, the API client (the account), a signer or a receiver (by their Id). */
export type AuditActor = 'system' | 'api' | `signer:${string}` | `receiver:${string}`;

/** A certificate as the audit trail records it. */
export interface AuditCertificate {
  readonly subject: string;
  /** Serial number, hexadecimal. */
  readonly serial: string;
  readonly issuer: string;
}

/** Outcome of a verification step. */
export type VerificationResult = 'passed' | 'failed';

/** The kind of e-mail a `mail.sent` entry records. */
export type MailKind = 'invitation' | 'reminder' | 'confirmation' | 'documents' | 'receipt' | 'cancellation' | 'notification';

/**
 * The `data` of each entry type. The union is closed: {@link verifyAuditLog} refuses unknown types.
 * Evidence never holds secrets: a phone number's last digits, never the one-time code.
 */
export interface AuditEventData {
  'transaction.created': { reference?: string; language: string; seal: boolean; signers: number; receivers: number };
  /** `normalizedFrom`: the upload was rewritten (empty-password encryption, damaged xref); its SHA-256 and why. */
  'file.uploaded': {
    fileId: string;
    displayName: string;
    sha256: string;
    bytes: number;
    pages: number;
    normalizedFrom?: { sha256: string; bytes: number; reason: string };
  };
  'metadata.uploaded': { fileId: string; sha256: string; bytes: number };
  'transaction.started': { files: number; signers: number };
  'mail.sent': { kind: MailKind; recipientId?: string; to: string; messageId: string };
  'mail.failed': { kind: MailKind; recipientId?: string; to: string; reason: string };
  'signer.opened': { signerId: string; ip: string; userAgent: string };
  'document.opened': { signerId: string; fileId: string };
  'verification.performed': {
    signerId: string;
    verification: string;
    result: VerificationResult;
    evidence: { readonly [key: string]: string };
  };
  'signer.signed': {
    signerId: string;
    ip: string;
    userAgent: string;
    fields: readonly { fileId: string; field: string }[];
    certificate: AuditCertificate;
  };
  'signer.rejected': { signerId: string; reason: string; ip: string; userAgent: string };
  /** A signing hold left at 20 by a process that died while signing was released by the timers. */
  'signing.released': { signerId: string; heldSince: string; reason: string };
  'document.finalized': { fileId: string; sha256: string; bytes: number };
  'transaction.sealed': { certificate: AuditCertificate; level: 'advanced' | 'qualified'; fileIds: readonly string[] };
  'transaction.completed': { status: number };
  'transaction.failed': { reason: string };
  'transaction.cancelled': { reason?: string };
  'transaction.expired': { expiredAt: string };
  'transaction.cleaned': { what: readonly string[] };
  'postback.delivered': { url: string; httpStatus: number; attempt: number };
  'postback.failed': { url: string; httpStatus?: number; error: string; attempt: number };
}

/** Every entry type. */
export type AuditEventType = keyof AuditEventData;

/** The keys each type's `data` must have (used to check logs read back from JSON). */
const REQUIRED_DATA_KEYS: { readonly [T in AuditEventType]: readonly (keyof AuditEventData[T])[] } = {
  'transaction.created': ['language', 'seal', 'signers', 'receivers'],
  'file.uploaded': ['fileId', 'displayName', 'sha256', 'bytes', 'pages'],
  'metadata.uploaded': ['fileId', 'sha256', 'bytes'],
  'transaction.started': ['files', 'signers'],
  'mail.sent': ['kind', 'to', 'messageId'],
  'mail.failed': ['kind', 'to', 'reason'],
  'signer.opened': ['signerId', 'ip', 'userAgent'],
  'document.opened': ['signerId', 'fileId'],
  'verification.performed': ['signerId', 'verification', 'result', 'evidence'],
  'signer.signed': ['signerId', 'ip', 'userAgent', 'fields', 'certificate'],
  'signer.rejected': ['signerId', 'reason', 'ip', 'userAgent'],
  'signing.released': ['signerId', 'heldSince', 'reason'],
  'document.finalized': ['fileId', 'sha256', 'bytes'],
  'transaction.sealed': ['certificate', 'level', 'fileIds'],
  'transaction.completed': ['status'],
  'transaction.failed': ['reason'],
  'transaction.cancelled': [],
  'transaction.expired': ['expiredAt'],
  'transaction.cleaned': ['what'],
  'postback.delivered': ['url', 'httpStatus', 'attempt'],
  'postback.failed': ['url', 'error', 'attempt'],
};

/** All entry types, in life-cycle order. */
export const AUDIT_EVENT_TYPES = Object.keys(REQUIRED_DATA_KEYS) as readonly AuditEventType[];

/** One entry of the chain, as stored and as embedded in the receipt. */
export type AuditEntry = {
  [T in AuditEventType]: {
    /** 1-based position in the log: entry `i` (0-based index) has `seq` `i + 1`. */
    readonly seq: number;
    /**
     * ISO 8601 UTC with milliseconds and offset, e.g. `2026-11-21T10:00:00.000+00:00` (docs/design/api.md#timestamps).
     */
    readonly at: string;
    readonly type: T;
    readonly actor: AuditActor;
    readonly data: AuditEventData[T];
    /** `hash` of the entry before, or {@link GENESIS_HASH} for the first. */
    readonly prevHash: string;
    /** Lowercase hex SHA-256 of the RFC 8785 (JCS) canonical JSON of this entry without `hash`. */
    readonly hash: string;
  };
}[AuditEventType];

/** What a caller hands to {@link appendAuditEntry}. */
export type AuditEventInput = {
  [T in AuditEventType]: { at: Date; type: T; actor: AuditActor; data: AuditEventData[T] };
}[AuditEventType];

/** The timestamp format of the audit trail and the API: `2026-11-21T10:00:00.000+00:00`. */
export function formatAuditTime(at: Date): string {
  const ms = at.getTime();
  if (!Number.isFinite(ms)) throw new ParaphError('AUDIT_INVALID_TIME', 'The audit entry time is an invalid Date: hand in a valid Date.');
  return at.toISOString().replace(/Z$/, '+00:00');
}

/**
 * The SHA-256 (lowercase hex) an entry must carry: over the RFC 8785 (JCS) canonical JSON of every field but `hash`.
 * Logs written before JCS was named (receipt attachment format `paraph-audit-log/1`) were hashed over the same bytes:
 * paraph's own canonical JSON already sorted keys by UTF-16 code units and wrote numbers and strings as ECMAScript
 * does, which is what JCS specifies for every value an audit entry can hold.
 */
export function hashAuditEntry(entry: Omit<AuditEntry, 'hash'> | AuditEntry): string {
  const { seq, at, type, actor, data, prevHash } = entry;
  const text = canonicalJson({ seq, at, type, actor, data, prevHash });
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * Returns a new log with `event` appended, chained to the last entry. The input log is not changed.
 * The time must not run backwards: an entry earlier than the last one is refused.
 *
 * @throws ParaphError `AUDIT_INVALID_TIME` for an invalid or earlier time, `CANONICAL_JSON_UNSUPPORTED` for data
 *   that is not plain JSON (undefined values, NaN, dates…).
 * @example
 * let log: readonly AuditEntry[] = [];
 * log = appendAuditEntry(log, { at: new Date('2026-11-21T10:00:00Z'), type: 'transaction.started', actor: 'api',
 *   data: { files: 1, signers: 2 } });
 */
export function appendAuditEntry(log: readonly AuditEntry[], event: AuditEventInput): readonly AuditEntry[] {
  return Object.freeze([...log, ...chainAuditEntries(log[log.length - 1], [event])]);
}

/**
 * The one rule of the chain: the entries that follow `last` (the log's current last entry, `undefined` for an empty
 * log) for `events`, in order. Stores call this with the last stored entry, so they never load a whole log to append.
 * Each entry is a frozen canonical copy, so later changes to the caller's objects cannot alter a hashed entry.
 *
 * @throws ParaphError `AUDIT_INVALID_TIME` for an invalid time or one earlier than the entry before,
 *   `CANONICAL_JSON_UNSUPPORTED` for data that is not plain JSON.
 */
export function chainAuditEntries(last: AuditEntry | undefined, events: readonly AuditEventInput[]): AuditEntry[] {
  const chained: AuditEntry[] = [];
  let previous = last;
  for (const event of events) {
    const at = formatAuditTime(event.at);
    if (previous !== undefined && at < previous.at) {
      throw new ParaphError(
        'AUDIT_INVALID_TIME',
        `Audit entry time ${at} is earlier than the last entry's ${previous.at}: entries must be appended in time order.`,
      );
    }
    const unsigned = {
      seq: (previous?.seq ?? 0) + 1,
      at,
      type: event.type,
      actor: event.actor,
      data: event.data,
      prevHash: previous?.hash ?? GENESIS_HASH,
    } as Omit<AuditEntry, 'hash'>;
    const entry = deepFreeze(JSON.parse(canonicalJson({ ...unsigned, hash: hashAuditEntry(unsigned) })) as AuditEntry);
    chained.push(entry);
    previous = entry;
  }
  return chained;
}

/** Why verification stopped. */
export type AuditLogFailureCode =
  | 'MALFORMED'
  | 'SEQUENCE'
  | 'PREVIOUS_HASH'
  | 'HASH'
  | 'TIME_ORDER'
  | 'MISSING_ENTRIES'
  | 'EXTRA_ENTRIES'
  | 'HEAD';

/** The verdict of {@link verifyAuditLog}. */
export type AuditLogVerdict =
  | { readonly ok: true; readonly head: string; readonly count: number }
  | { readonly ok: false; readonly position: number; readonly code: AuditLogFailureCode; readonly reason: string };

/** What the caller knows independently of the entries (e.g. printed in a sealed receipt). */
export interface AuditLogExpectation {
  readonly count: number;
  readonly head: string;
}

/**
 * Checks a log entry by entry, from the first, and stops at the first entry that fails.
 *
 * **position** is the 0-based index into `entries` of the first entry `e` such that `e` is malformed (not an
 * object of the documented shape), or `e.seq !== position + 1`, or `e.prevHash` differs from the `hash` of
 * `entries[position - 1]` (from {@link GENESIS_HASH} at position 0), or `e.at` is earlier than the entry before,
 * or `e.hash` differs from {@link hashAuditEntry}(e). When every entry passes and `expected` is given: fewer
 * entries than `expected.count` fail at position `entries.length` (where the first missing entry belongs); more
 * fail at `expected.count` (the first extra entry); a last hash other than `expected.head` fails at
 * `entries.length - 1`.
 *
 * So a single edit, removal, swap or removed run of entries fails at the lowest index it changed. A removal at the
 * end is only seen with `expected`. A forged entry chained correctly onto its predecessor (the chain holds no
 * secret, anyone can compute a hash) fails at the next index, whose `prevHash` no longer matches — or, as the last
 * entry, only against `expected.head`. That is why the receipt prints the head hash and is sealed.
 */
export function verifyAuditLog(entries: readonly unknown[], expected?: AuditLogExpectation): AuditLogVerdict {
  let prevHash = GENESIS_HASH;
  let prevAt = '';
  for (let position = 0; position < entries.length; position++) {
    const raw = entries[position];
    const problem = describeMalformed(raw);
    if (problem !== undefined) return fail(position, 'MALFORMED', `entry ${position + 1} ${problem}`);
    const entry = raw as AuditEntry;
    if (entry.seq !== position + 1) {
      return fail(position, 'SEQUENCE', `entry ${position + 1} has seq ${entry.seq}: entries were removed, inserted or reordered`);
    }
    if (entry.prevHash !== prevHash) {
      return fail(position, 'PREVIOUS_HASH', `entry ${entry.seq} does not chain to the entry before it (prevHash ${entry.prevHash}, expected ${prevHash})`);
    }
    if (entry.at < prevAt) {
      return fail(position, 'TIME_ORDER', `entry ${entry.seq} (${entry.at}) is earlier than the entry before it (${prevAt})`);
    }
    let actual: string;
    try {
      actual = hashAuditEntry(entry);
    } catch (error) {
      return fail(position, 'MALFORMED', `entry ${entry.seq} holds a value JSON cannot carry (${(error as Error).message})`);
    }
    if (actual !== entry.hash) {
      return fail(position, 'HASH', `entry ${entry.seq} was changed after it was recorded (hash ${entry.hash}, content hashes to ${actual})`);
    }
    prevHash = entry.hash;
    prevAt = entry.at;
  }
  if (expected !== undefined) {
    if (entries.length < expected.count) {
      return fail(entries.length, 'MISSING_ENTRIES', `the log ends after ${entries.length} entries, ${expected.count} were recorded`);
    }
    if (entries.length > expected.count) {
      return fail(expected.count, 'EXTRA_ENTRIES', `the log has ${entries.length} entries, only ${expected.count} were recorded`);
    }
    if (prevHash !== expected.head) {
      return fail(entries.length - 1, 'HEAD', `the last entry's hash ${prevHash} is not the recorded head ${expected.head}`);
    }
  }
  return { ok: true, head: prevHash, count: entries.length };
}

function fail(position: number, code: AuditLogFailureCode, reason: string): AuditLogVerdict {
  return { ok: false, position, code, reason };
}

const HEX64 = /^[0-9a-f]{64}$/;
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/;
const ENTRY_KEYS = ['actor', 'at', 'data', 'hash', 'prevHash', 'seq', 'type'];

function describeMalformed(raw: unknown): string | undefined {
  if (!isPlainObject(raw)) return 'is not an object';
  const keys = Object.keys(raw).sort();
  if (keys.join() !== ENTRY_KEYS.join()) return `has the fields ${keys.join(', ')} instead of ${ENTRY_KEYS.join(', ')}`;
  const { seq, at, type, actor, data, prevHash, hash } = raw;
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq)) return 'has a seq that is not an integer';
  if (typeof at !== 'string' || !TIME.test(at) || Number.isNaN(Date.parse(at))) return `has an invalid time ${JSON.stringify(at)}`;
  if (typeof type !== 'string' || !Object.hasOwn(REQUIRED_DATA_KEYS, type)) return `has an unknown type ${JSON.stringify(type)}`;
  if (typeof actor !== 'string' || !/^(system|api|signer:.+|receiver:.+)$/s.test(actor)) return `has an invalid actor ${JSON.stringify(actor)}`;
  if (!isPlainObject(data)) return 'has data that is not an object';
  const missing = (REQUIRED_DATA_KEYS[type as AuditEventType] as readonly string[]).filter((key) => !Object.hasOwn(data, key));
  if (missing.length > 0) return `(${type}) lacks data ${missing.join(', ')}`;
  if (typeof prevHash !== 'string' || !HEX64.test(prevHash)) return 'has a prevHash that is not 64 lowercase hex digits';
  if (typeof hash !== 'string' || !HEX64.test(hash)) return 'has a hash that is not 64 lowercase hex digits';
  return undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

