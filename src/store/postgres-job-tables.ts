/**
 * paraph's side of the PostgreSQL job engine (docs/design/storage.md#jobs). graphile-worker decides when and where a
 * job runs; the outbox rows stay the record of what is to be delivered and of every attempt. A job names an outbox
 * key — `key:<orderKey>` for the rows of one postback URL, delivered one at a time in order, or `row:<id>` for a row
 * of its own — and works through the key's pending rows oldest first. The nodes table holds a heartbeat per running
 * worker pool, so that the survivors can hand a killed process's locked jobs back.
 */
import type pg from 'pg';
import type { JsonValue } from '../domain/transaction.js';
import { inTransaction } from './postgres-blob-store.js';
import { OUTBOX_QUEUE_LOCK } from './postgres-migrations.js';
import type { OutboxKind, OutboxMessage } from './store.js';

/** The columns an outbox row is read with. */
export interface OutboxRow {
  id: string;
  transaction_id: string;
  kind: OutboxKind;
  payload: string;
  order_key: string | null;
  due_at: string;
  first_due_at: string;
  /** Attempts before the one this read starts. */
  attempts: number;
  last_error: string | null;
}

/** An outbox row as a worker handles it; `attempts` counts the attempt about to be made. */
export function outboxMessage(row: OutboxRow): OutboxMessage {
  const message: OutboxMessage = {
    id: Number(row.id),
    transactionId: row.transaction_id,
    kind: row.kind,
    payload: JSON.parse(row.payload) as JsonValue,
    dueAt: new Date(Number(row.due_at)),
    attempts: row.attempts + 1,
    firstDueAt: new Date(Number(row.first_due_at)),
  };
  if (row.order_key !== null) message.orderKey = row.order_key;
  if (row.last_error !== null) message.lastError = row.last_error;
  return message;
}

type Queryable = Pick<pg.Pool, 'query'>;

/** Which rows a job key names; undefined for a key paraph did not write. */
function rowsOf(key: string): { column: 'id' | 'order_key'; value: string } | undefined {
  if (key.startsWith('key:')) return { column: 'order_key', value: key.slice(4) };
  if (key.startsWith('row:') && /^\d+$/.test(key.slice(4))) return { column: 'id', value: key.slice(4) };
  return undefined;
}

/** The outbox rows of one job key. */
export class OutboxKeyRows {
  constructor(private readonly db: Queryable) {}

  /** The oldest pending row of `key`, with when it is due. */
  async head(key: string): Promise<{ id: number; dueAt: Date } | undefined> {
    const rows = rowsOf(key);
    if (rows === undefined) return undefined;
    const { rows: found } = await this.db.query<{ id: string; due_at: string }>(
      `SELECT id, due_at FROM outbox WHERE ${rows.column} = $1 AND status = 'pending' ORDER BY id LIMIT 1`,
      [rows.value],
    );
    const row = found[0];
    return row === undefined ? undefined : { id: Number(row.id), dueAt: new Date(Number(row.due_at)) };
  }

  /** Counts an attempt of the pending row `id` and returns it; undefined when it is no longer pending. */
  async beginAttempt(id: number): Promise<OutboxMessage | undefined> {
    const { rows } = await this.db.query<OutboxRow>(
      `UPDATE outbox SET attempts = attempts + 1 WHERE id = $1 AND status = 'pending'
       RETURNING id, transaction_id, kind, payload, order_key, due_at, first_due_at, attempts - 1 AS attempts, last_error`,
      [id],
    );
    const row = rows[0];
    return row === undefined ? undefined : outboxMessage(row);
  }
}

/**
 * Adds (or moves) the job of outbox key `key` to run at `runAt`, as the outbox trigger does for a new row; `mode` is
 * graphile-worker's job_key_mode. graphile-worker compares `runAt` with the database's clock.
 */
export async function addOutboxJob(db: Queryable, key: string, runAt: Date, mode: 'replace' | 'preserve_run_at'): Promise<void> {
  await db.query('SELECT paraph_add_outbox_job($1, $2, $3)', [key, runAt, mode]);
}

/**
 * Deletes the named queues of postback URLs that have no job left (each URL leaves one behind in graphile-worker) and
 * returns how many. It holds the lock every job addition takes shared, so that no commit can add a job to a queue
 * while it is deleted: graphile-worker's own GC_JOB_QUEUES has that race, and a job whose queue is gone never runs.
 * While a commit holds the lock, nothing is collected this time (0): commits never wait behind the collector.
 */
export function collectEmptyOutboxQueues(pool: pg.Pool): Promise<number> {
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS locked', [OUTBOX_QUEUE_LOCK]);
    if (rows[0]?.locked !== true) return 0;
    // A new statement after the lock: its snapshot sees every job whose commit held the lock before.
    const { rowCount } = await client.query(
      `DELETE FROM graphile_worker._private_job_queues q
       WHERE q.queue_name LIKE 'paraph:key:%' AND q.locked_at IS NULL
         AND NOT EXISTS (SELECT 1 FROM graphile_worker._private_jobs j WHERE j.job_queue_id = q.id)`,
    );
    return rowCount ?? 0;
  });
}

/** The heartbeats of running worker pools. Times are the database's, so clocks of different machines do not matter. */
export class JobNodes {
  constructor(private readonly db: Queryable) {}

  /** Records that the pool `poolId` is alive now. */
  async beat(poolId: string): Promise<void> {
    await this.db.query(
      `INSERT INTO job_nodes (pool_id, heartbeat_at) VALUES ($1, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)
       ON CONFLICT (pool_id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at`,
      [poolId],
    );
  }

  /** Forgets `poolId` (a pool that stopped cleanly has handed its jobs back). */
  async leave(poolId: string): Promise<void> {
    await this.db.query('DELETE FROM job_nodes WHERE pool_id = $1', [poolId]);
  }

  /** Removes and returns the pools silent for longer than `silentMs`: their processes are gone. */
  async takeDead(silentMs: number): Promise<string[]> {
    const { rows } = await this.db.query<{ pool_id: string }>(
      `DELETE FROM job_nodes WHERE heartbeat_at < (extract(epoch FROM clock_timestamp()) * 1000)::bigint - $1::bigint RETURNING pool_id`,
      [silentMs],
    );
    return rows.map((row) => row.pool_id);
  }

  /**
   * Pools that hold jobs or queues locked for longer than `silentMs` without ever having beaten: a process killed
   * between graphile-worker's first fetch and its first heartbeat. (Reads graphile-worker 0.17's own tables.)
   */
  async unknownLockHolders(silentMs: number): Promise<string[]> {
    const { rows } = await this.db.query<{ locked_by: string }>(
      `SELECT DISTINCT locked_by FROM (
         SELECT locked_by, locked_at FROM graphile_worker._private_jobs WHERE locked_by IS NOT NULL
         UNION ALL SELECT locked_by, locked_at FROM graphile_worker._private_job_queues WHERE locked_by IS NOT NULL
       ) locks
       WHERE locked_at < clock_timestamp() - make_interval(secs => $1::float8 / 1000)
         AND NOT EXISTS (SELECT 1 FROM job_nodes n WHERE n.pool_id = locks.locked_by)`,
      [silentMs],
    );
    return rows.map((row) => row.locked_by);
  }
}
