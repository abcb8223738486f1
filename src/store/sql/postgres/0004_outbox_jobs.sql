-- Jobs run on graphile-worker (its schema is installed first, see installJobSchema). Every outbox row becomes a
-- job in the same transaction that writes it: one job per postback URL (its named queue runs one at a time, so
-- the URL's rows go out in order) and one per other row. `preserve_run_at` keeps a URL that is backing off
-- waiting: a new row must not overtake the one being retried. A new job runs at once; its task compares the
-- rows' due times with the service's clock, not the database's, and waits the difference. The nodes table lets
-- the surviving processes hand a killed process's jobs back (postgres-job-runner.ts). Rows pending from an
-- earlier schema get their jobs here.
CREATE FUNCTION paraph_enqueue_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  key TEXT := CASE WHEN NEW.order_key IS NULL THEN 'row:' || NEW.id ELSE 'key:' || NEW.order_key END;
BEGIN
  PERFORM graphile_worker.add_job(
    'paraph_outbox',
    json_build_object('key', key),
    queue_name => CASE WHEN NEW.order_key IS NULL THEN NULL ELSE 'paraph:' || key END,
    job_key => 'paraph:' || key,
    job_key_mode => 'preserve_run_at');
  RETURN NEW;
END $$;
CREATE TRIGGER outbox_enqueue AFTER INSERT ON outbox FOR EACH ROW EXECUTE FUNCTION paraph_enqueue_outbox();
SELECT graphile_worker.add_job(
  'paraph_outbox',
  json_build_object('key', key),
  queue_name => CASE WHEN order_key IS NULL THEN NULL ELSE 'paraph:' || key END,
  job_key => 'paraph:' || key,
  job_key_mode => 'preserve_run_at')
FROM (
  SELECT DISTINCT CASE WHEN order_key IS NULL THEN 'row:' || id ELSE 'key:' || order_key END AS key, order_key
  FROM outbox WHERE status = 'pending'
) pending;
CREATE TABLE job_nodes (
  pool_id TEXT PRIMARY KEY,
  heartbeat_at BIGINT NOT NULL
);
