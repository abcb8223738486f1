/**
 * The account rate buckets of the PostgreSQL store: one row per account, each
 * lease one atomic upsert that refills the bucket by the database's clock and takes whole tokens from it.
 */
import type { QueryResult, QueryResultRow } from 'pg';
import type { RateBuckets, RateLease } from './store.js';

/** Runs one statement (the store's pool, refusing work once the store is closed). */
export type PostgresQuery = <R extends QueryResultRow>(text: string, values: unknown[]) => Promise<QueryResult<R>>;

// $1 account, $2 tokens wanted, $3 tokens per minute (also the capacity). The SET expressions read the row as it was
// before this statement (b.*), after waiting for any concurrent lease of the same account: leases never overlap.
const REFILLED = 'LEAST($3::float8, b.tokens + GREATEST(0, excluded.at_ms - b.at_ms) * $3::float8 / 60000)';
const TAKE = `
  INSERT INTO account_rate_buckets AS b (account_id, tokens, at_ms, taken)
  VALUES ($1, $3::float8 - LEAST($2::int, floor($3::float8)), extract(epoch FROM clock_timestamp()) * 1000, LEAST($2::int, floor($3::float8)))
  ON CONFLICT (account_id) DO UPDATE SET
    taken = LEAST($2::int, floor(${REFILLED})),
    tokens = ${REFILLED} - LEAST($2::int, floor(${REFILLED})),
    at_ms = GREATEST(b.at_ms, excluded.at_ms)
  RETURNING taken, tokens`;

export class PostgresRateBuckets implements RateBuckets {
  constructor(private readonly query: PostgresQuery) {}

  async take(accountId: string, want: number, perMinute: number): Promise<RateLease> {
    const { rows } = await this.query<{ taken: number; tokens: number }>(TAKE, [accountId, Math.max(1, Math.floor(want)), perMinute]);
    const row = rows[0];
    if (row === undefined) throw new Error('account_rate_buckets: the upsert returned no row');
    return { taken: row.taken, left: row.tokens };
  }
}
