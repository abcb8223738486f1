-- The accounts, transactions (JSON as written, with the columns the timers and quotas query), sign tokens, audit
-- entries, outbox and its attempts, blobs in chunks and their references, and settings.
CREATE TABLE accounts (
  id TEXT PRIMARY KEY,
  user_token_hash TEXT NOT NULL,
  app_key_hash TEXT NOT NULL,
  data TEXT NOT NULL,
  created_seq BIGSERIAL,
  UNIQUE (user_token_hash, app_key_hash)
);
CREATE TABLE transactions (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  version INTEGER NOT NULL,
  status INTEGER NOT NULL,
  data TEXT NOT NULL,
  expire_at BIGINT,
  remind_at BIGINT,
  ended_at BIGINT,
  release_at BIGINT
);
CREATE INDEX transactions_expire ON transactions(expire_at) WHERE expire_at IS NOT NULL;
CREATE INDEX transactions_remind ON transactions(remind_at) WHERE remind_at IS NOT NULL;
CREATE INDEX transactions_ended ON transactions(ended_at) WHERE ended_at IS NOT NULL;
CREATE INDEX transactions_release ON transactions(release_at) WHERE release_at IS NOT NULL;
CREATE INDEX transactions_account ON transactions(account_id);
CREATE TABLE sign_tokens (
  token_hash TEXT PRIMARY KEY,
  transaction_id TEXT NOT NULL REFERENCES transactions(id) ON DELETE CASCADE,
  signer_id TEXT NOT NULL
);
CREATE INDEX sign_tokens_tx ON sign_tokens(transaction_id);
CREATE TABLE audit_entries (
  transaction_id TEXT NOT NULL REFERENCES transactions(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  entry TEXT NOT NULL,
  PRIMARY KEY (transaction_id, seq)
);
CREATE TABLE outbox (
  id BIGSERIAL PRIMARY KEY,
  transaction_id TEXT NOT NULL REFERENCES transactions(id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('postback', 'mail', 'timer')),
  payload TEXT NOT NULL,
  order_key TEXT,
  due_at BIGINT NOT NULL,
  first_due_at BIGINT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'failed')),
  lease_until BIGINT,
  last_error TEXT
);
CREATE INDEX outbox_pending ON outbox(due_at) WHERE status = 'pending';
CREATE INDEX outbox_order ON outbox(order_key, id) WHERE status = 'pending';
CREATE TABLE outbox_attempts (
  id BIGSERIAL PRIMARY KEY,
  outbox_id BIGINT NOT NULL REFERENCES outbox(id) ON DELETE CASCADE,
  attempt INTEGER NOT NULL,
  at BIGINT NOT NULL,
  outcome TEXT NOT NULL CHECK (outcome IN ('delivered', 'retry', 'failed')),
  response_code INTEGER,
  detail TEXT
);
CREATE INDEX outbox_attempts_row ON outbox_attempts(outbox_id, attempt);
CREATE TABLE blobs (
  sha256 TEXT PRIMARY KEY,
  sha512 TEXT NOT NULL,
  size BIGINT NOT NULL,
  created_at BIGINT NOT NULL
);
-- Chunks are written under an upload key and renamed to the blob's SHA-256 once its digests are checked.
CREATE TABLE blob_chunks (
  blob_key TEXT NOT NULL,
  n INTEGER NOT NULL,
  bytes BYTEA NOT NULL,
  PRIMARY KEY (blob_key, n)
);
-- The foreign key makes deleting a referenced blob fail even when a commit adds the reference concurrently.
CREATE TABLE blob_refs (
  transaction_id TEXT NOT NULL REFERENCES transactions(id) ON DELETE CASCADE,
  sha256 TEXT NOT NULL REFERENCES blobs(sha256),
  PRIMARY KEY (transaction_id, sha256)
);
CREATE INDEX blob_refs_sha ON blob_refs(sha256);
CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
