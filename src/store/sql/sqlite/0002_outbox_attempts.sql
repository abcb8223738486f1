-- Every delivery attempt is recorded; retries stop a fixed time after a row was first due.
ALTER TABLE outbox ADD COLUMN first_due_at INTEGER;
UPDATE outbox SET first_due_at = due_at;
CREATE TABLE outbox_attempts (
  outbox_id INTEGER NOT NULL REFERENCES outbox(id) ON DELETE CASCADE,
  attempt INTEGER NOT NULL,
  at INTEGER NOT NULL,
  outcome TEXT NOT NULL CHECK (outcome IN ('delivered', 'retry', 'failed')),
  response_code INTEGER,
  detail TEXT
);
CREATE INDEX outbox_attempts_row ON outbox_attempts(outbox_id, attempt);
