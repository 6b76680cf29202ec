-- Webhooks that run for months: an endpoint is disabled after sustained failure (not after one bad
-- delivery), dead deliveries get a retention, and nothing on the runner's path reads the backlog.

-- The current failure streak: when it began (NULL while the endpoint is healthy) and how many
-- deliveries failed in it. `failed_at` (0003) now means "disabled at".
ALTER TABLE webhooks ADD COLUMN failing_since TEXT;
ALTER TABLE webhooks ADD COLUMN failed_deliveries INTEGER NOT NULL DEFAULT 0;

-- The runner reaches due rows per endpoint (webhook_deliveries_webhook_due, 0005) and computes the
-- next due time from the same index; this global one only cost a write per insert and lease.
DROP INDEX webhook_deliveries_due;
-- Start-up takes over the leases a dead process left: only leased rows are indexed.
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries(locked_until) WHERE status = 'pending' AND locked_until IS NOT NULL;
-- Pruning: dead rows older than their retention (run_at is when the last attempt failed).
CREATE INDEX webhook_deliveries_dead ON webhook_deliveries(run_at) WHERE status = 'dead';

-- Failure reasons used to keep the first 200 characters of what the receiver answered, or the
-- socket error's text (with internal addresses): keep only the classified reason the runner now writes.
UPDATE webhook_deliveries SET last_error = CASE
    WHEN last_status IS NOT NULL THEN 'http_' || last_status
    WHEN last_error LIKE 'timed out%' THEN 'timeout'
    WHEN last_error LIKE '%ECONNREFUSED%' THEN 'connection_refused'
    WHEN last_error LIKE '%ECONNRESET%' OR last_error LIKE '%socket hang up%' THEN 'connection_reset'
    WHEN last_error LIKE '%ENOTFOUND%' OR last_error LIKE '%EAI_AGAIN%' OR last_error LIKE '%did not resolve%' THEN 'dns_error'
    WHEN last_error LIKE 'The URL %' OR last_error LIKE '% resolves to %' THEN 'blocked_address'
    ELSE 'network_error' END
  WHERE last_error IS NOT NULL;
UPDATE webhooks SET last_error = 'Disabled: a delivery failed 5 times (the reason was recorded before migration 0012)'
  WHERE last_error IS NOT NULL;
