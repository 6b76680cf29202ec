-- Publishable keys are public by design (every shop page that embeds the widget shows one), so
-- the full key is kept for them: `punchcard widget sign` and the demo page can find a project's
-- live publishable key instead of asking the operator to paste it. Secret keys stay hash-only;
-- this column is always NULL for them. Publishable keys created before this migration keep NULL.
ALTER TABLE api_keys ADD COLUMN publishable_key TEXT CHECK (publishable_key IS NULL OR type = 'publishable');
