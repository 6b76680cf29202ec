-- Whether the widget shows a game's odds (each prize's weight / the total weight) beside its
-- prizes. On by default, existing games included: shoppers see their chances before they spend
-- points on a game of chance, unless the operator turns it off for a game.
ALTER TABLE games ADD COLUMN show_odds INTEGER NOT NULL DEFAULT 1 CHECK (show_odds = 0 OR show_odds = 1);
