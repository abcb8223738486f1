-- A signing hold left by a process that died is released by the timers (transactionTimers().releaseAt).
-- Transactions already held at 20 get their release date from the hold (signingSince + 5 minutes), as a commit
-- would write it; julianday reads the stored `…+00:00` times.
-- 300000 is the signing hold's staleness (SIGNING_HOLD_STALE_MS, 5 minutes) when this migration shipped.
ALTER TABLE transactions ADD COLUMN release_at INTEGER;
CREATE INDEX transactions_release ON transactions(release_at) WHERE release_at IS NOT NULL;
UPDATE transactions SET release_at = (
  SELECT CAST(round((julianday(json_extract(s.value, '$.SignSession.signingSince')) - 2440587.5) * 86400000) AS INTEGER) + 300000
  FROM json_each(transactions.data, '$.Signers') AS s
  WHERE json_extract(s.value, '$.SignSession.signingSince') IS NOT NULL
  LIMIT 1
) WHERE status = 20;
