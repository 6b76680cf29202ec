-- Outbound webhooks: endpoints, the events they are sent, and a durable delivery job per
-- (event, endpoint). Events and deliveries are written in the same transaction as the change that
-- caused them (a transactional outbox), so a committed change is never without its event and a
-- rolled-back one never has one.

CREATE TABLE webhooks (
  id          TEXT PRIMARY KEY,                 -- whk_…; a small catalog table
  project_id  TEXT NOT NULL REFERENCES projects(id),
  url         TEXT NOT NULL,
  events      TEXT NOT NULL,                    -- JSON array of event types
  secret      TEXT NOT NULL,                    -- whsec_…, encrypted under the master key
  is_active   INTEGER NOT NULL DEFAULT 1 CHECK (is_active = 0 OR is_active = 1),
  failed_at   TEXT,                             -- set when a delivery died after its last attempt
  last_error  TEXT,
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL
);
-- GET /webhooks, and emit(): a project's active endpoints.
CREATE INDEX webhooks_project ON webhooks(project_id);

CREATE TABLE events (
  id          INTEGER PRIMARY KEY,
  public_id   TEXT NOT NULL,                    -- evt_…, the payload's id: the same on every retry and replay
  project_id  TEXT NOT NULL REFERENCES projects(id),
  type        TEXT NOT NULL,
  data        TEXT NOT NULL,                    -- JSON
  created_at  TEXT NOT NULL
);

CREATE TABLE webhook_deliveries (
  id            INTEGER PRIMARY KEY,
  public_id     TEXT NOT NULL,                  -- dlv_…, what operators replay by
  project_id    TEXT NOT NULL REFERENCES projects(id),
  webhook_id    TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  event_id      INTEGER NOT NULL REFERENCES events(id),
  status        TEXT NOT NULL DEFAULT 'pending' CHECK (status = 'pending' OR status = 'delivered' OR status = 'dead'),
  attempts      INTEGER NOT NULL DEFAULT 0,     -- attempts made so far
  run_at        TEXT NOT NULL,                  -- when the next attempt is due
  locked_until  TEXT,                           -- lease of the runner holding it; expired leases are taken over
  last_status   INTEGER,                        -- HTTP status of the last attempt, if it got one
  last_error    TEXT,
  created_at    TEXT NOT NULL,
  delivered_at  TEXT
);
-- The runner: pending deliveries due now, oldest first.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(run_at) WHERE status = 'pending';
-- punchcard webhooks replay DELIVERY_ID.
CREATE INDEX webhook_deliveries_public_id ON webhook_deliveries(public_id);
-- A webhook's deliveries (CLI listing, cascade on delete).
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries(webhook_id, id);
