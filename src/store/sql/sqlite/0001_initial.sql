-- The accounts, transactions (JSON as written, with the columns the timers and quotas query), sign tokens, audit
-- entries, outbox, blob references and settings.
CREATE TABLE accounts (
  id TEXT PRIMARY KEY,
  user_token_hash TEXT NOT NULL,
  app_key_hash TEXT NOT NULL,
  data TEXT NOT NULL,
  UNIQUE (user_token_hash, app_key_hash)
);
CREATE TABLE transactions (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  version INTEGER NOT NULL,
  status INTEGER NOT NULL,
  data TEXT NOT NULL,
  expire_at INTEGER,
  remind_at INTEGER,
  ended_at INTEGER
);
CREATE INDEX transactions_expire ON transactions(expire_at) WHERE expire_at IS NOT NULL;
CREATE INDEX transactions_remind ON transactions(remind_at) WHERE remind_at IS NOT NULL;
CREATE INDEX transactions_ended ON transactions(ended_at) WHERE ended_at IS NOT NULL;
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
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  transaction_id TEXT NOT NULL REFERENCES transactions(id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('postback', 'mail', 'timer')),
  payload TEXT NOT NULL,
  order_key TEXT,
  due_at INTEGER NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'failed')),
  lease_until INTEGER,
  last_error TEXT
);
CREATE INDEX outbox_pending ON outbox(due_at) WHERE status = 'pending';
CREATE INDEX outbox_order ON outbox(order_key, id) WHERE status = 'pending';
CREATE TABLE blob_refs (
  transaction_id TEXT NOT NULL REFERENCES transactions(id) ON DELETE CASCADE,
  sha256 TEXT NOT NULL,
  PRIMARY KEY (transaction_id, sha256)
);
CREATE INDEX blob_refs_sha ON blob_refs(sha256);
CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
