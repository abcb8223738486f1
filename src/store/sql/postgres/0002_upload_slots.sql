-- The 409 re-upload guard (docs/design/files.md#replace-guard) shared by every process: a slot per transaction,
-- fileId and kind.
CREATE TABLE upload_slots (
  transaction_id TEXT NOT NULL REFERENCES transactions(id) ON DELETE CASCADE,
  file_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('pdf', 'metadata')),
  claim TEXT,
  busy_until BIGINT,
  accepted_at BIGINT,
  PRIMARY KEY (transaction_id, file_id, kind)
);
