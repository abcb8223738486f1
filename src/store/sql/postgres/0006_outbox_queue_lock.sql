-- Every job of an outbox key is added through paraph_add_outbox_job, under a shared advisory lock (1885434466, the
-- OUTBOX_QUEUE_LOCK of postgres-migrations.ts) that the collector of empty queues takes exclusively
-- (collectEmptyOutboxQueues). graphile-worker's own GC_JOB_QUEUES could delete a URL's empty queue while a commit was
-- adding a job to it: the job then named a queue that no longer existed and was never fetched (the postback stayed
-- pending for good). Jobs left in that state are given their queue back here.
CREATE FUNCTION paraph_add_outbox_job(key TEXT, run_at TIMESTAMPTZ, job_key_mode TEXT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock_shared(1885434466);
  PERFORM graphile_worker.add_job(
    'paraph_outbox',
    json_build_object('key', key),
    queue_name => CASE WHEN key LIKE 'key:%' THEN 'paraph:' || key END,
    run_at => run_at,
    job_key => 'paraph:' || key,
    job_key_mode => job_key_mode);
END $$;
CREATE OR REPLACE FUNCTION paraph_enqueue_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM paraph_add_outbox_job(
    CASE WHEN NEW.order_key IS NULL THEN 'row:' || NEW.id ELSE 'key:' || NEW.order_key END, NULL, 'preserve_run_at');
  RETURN NEW;
END $$;
INSERT INTO graphile_worker._private_job_queues (queue_name)
  SELECT DISTINCT j.key FROM graphile_worker._private_jobs j
  WHERE j.key LIKE 'paraph:key:%' AND j.job_queue_id IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM graphile_worker._private_job_queues q WHERE q.id = j.job_queue_id)
  ON CONFLICT DO NOTHING;
UPDATE graphile_worker._private_jobs j SET job_queue_id = q.id
  FROM graphile_worker._private_job_queues q
  WHERE q.queue_name = j.key AND j.key LIKE 'paraph:key:%' AND j.job_queue_id IS DISTINCT FROM q.id;
