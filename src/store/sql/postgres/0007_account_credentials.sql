-- Credentials of accounts, one row per application key or user token (docs/design/accounts.md): only a keyed hash of
-- each is stored; a rotated one stays valid until valid_until, a revoked one never again. The key pair every account
-- had so far becomes its first two credentials (their plain SHA-256 is upgraded to the keyed hash at first use).
-- The admin audit log records who did what to which account, never a secret.
CREATE TABLE account_credentials (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  kind TEXT NOT NULL,
  hash TEXT NOT NULL,
  label TEXT,
  created_at BIGINT NOT NULL,
  rotated_at BIGINT,
  replaced_by TEXT,
  valid_until BIGINT,
  revoked_at BIGINT,
  seq BIGSERIAL
);
CREATE INDEX account_credentials_hash ON account_credentials(hash);
CREATE INDEX account_credentials_account ON account_credentials(account_id);
INSERT INTO account_credentials (id, account_id, kind, hash, created_at)
  SELECT 'legacy-user-token-' || id, id, 'user-token', user_token_hash, 0 FROM accounts;
INSERT INTO account_credentials (id, account_id, kind, hash, created_at)
  SELECT 'legacy-app-key-' || id, id, 'app-key', app_key_hash, 0 FROM accounts;
CREATE TABLE admin_audit (
  id BIGSERIAL PRIMARY KEY,
  at BIGINT NOT NULL,
  actor TEXT NOT NULL,
  action TEXT NOT NULL,
  account_id TEXT,
  credential_id TEXT,
  data TEXT NOT NULL
);
