-- Wakes the webhook worker when events are recorded: one NOTIFY per INSERT statement, sent by
-- Postgres at commit (so never for a rolled-back event) and merged with the other identical
-- notifications of the same transaction. The worker LISTENs on the channel; its poll stays
-- as the fallback while it is not listening.
CREATE OR REPLACE FUNCTION notify_webhook_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('webhooks_events', '');
  RETURN NULL;
END
$$;
