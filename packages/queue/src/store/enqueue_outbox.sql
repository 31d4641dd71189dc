-- Writes one job to the outbox inside the caller's transaction, for the relay (src/outbox.ts)
-- to move onto its BullMQ queue once that transaction commits: writeOutbox(tx, …) for stored
-- functions, the one way SQL outside this package writes queue.outbox (crypto's
-- create_withdrawal). The table is qualified: callers run with their own schema's search_path.
CREATE OR REPLACE FUNCTION "enqueue_outbox"(p_queue text, p_job_id text, p_payload jsonb) RETURNS void
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  INSERT INTO queue.outbox (queue, job_id, payload) VALUES (p_queue, p_job_id, p_payload);
END;
$$;
