-- The storage quota reads one column per transaction (domain uploadedBytes, written by every commit)
-- under an index by account, instead of every upload size out of every transaction's JSON.
ALTER TABLE transactions ADD COLUMN storage_bytes BIGINT NOT NULL DEFAULT 0;
UPDATE transactions t SET storage_bytes = COALESCE((
  SELECT SUM(COALESCE((f->'Original'->>'size')::bigint, 0) + COALESCE((f->'MetadataBlob'->>'size')::bigint, 0))
  FROM jsonb_array_elements(COALESCE(t.data::jsonb->'Files', '[]'::jsonb)) f
), 0) WHERE t.data::jsonb->'cleanedAt' IS NULL;
CREATE INDEX transactions_account_storage ON transactions(account_id, storage_bytes);
