-- Outbound webhooks, second step: the indexes the delivery runner, its housekeeping and the CLI
-- read by. The tables themselves are in 0003.

-- The runner's claim for one endpoint it knows has work: its due deliveries, oldest first.
CREATE INDEX webhook_deliveries_webhook_due ON webhook_deliveries(webhook_id, run_at) WHERE status = 'pending';
-- Pruning: delivered rows older than the retention, oldest first.
CREATE INDEX webhook_deliveries_delivered ON webhook_deliveries(delivered_at) WHERE status = 'delivered';
-- Pruning: whether an event still has a delivery (and the foreign-key check when one is deleted).
CREATE INDEX webhook_deliveries_event ON webhook_deliveries(event_id);
-- punchcard webhooks deliveries --project P --status S, newest first.
CREATE INDEX webhook_deliveries_project_status ON webhook_deliveries(project_id, status, id);
