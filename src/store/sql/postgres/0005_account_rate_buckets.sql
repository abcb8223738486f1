-- The account rate quota shared by every process: a token bucket per account that processes lease
-- tokens from in batches (src/store/postgres-rate-buckets.ts). Times are the database's, in fractional ms.
CREATE TABLE account_rate_buckets (
  account_id TEXT PRIMARY KEY,
  tokens DOUBLE PRECISION NOT NULL,
  at_ms DOUBLE PRECISION NOT NULL,
  taken INTEGER NOT NULL
);
