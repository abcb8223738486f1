-- The storage quota summed every upload size out of every transaction's JSON on each upload: the
-- bytes now sit in a column (domain uploadedBytes, written by every commit) under an index by account.
ALTER TABLE transactions ADD COLUMN storage_bytes INTEGER NOT NULL DEFAULT 0;
UPDATE transactions SET storage_bytes = COALESCE((
  SELECT SUM(COALESCE(json_extract(f.value, '$.Original.size'), 0) + COALESCE(json_extract(f.value, '$.MetadataBlob.size'), 0))
  FROM json_each(transactions.data, '$.Files') AS f
), 0) WHERE json_extract(data, '$.cleanedAt') IS NULL;
CREATE INDEX transactions_account_storage ON transactions(account_id, storage_bytes);
