-- The programme's daily figures (the admin's Overview, `punchcard report points`): per project and
-- calendar day in the project's time zone, kept in step with the ledger by the writes themselves
-- (src/domain/analytics/figures.ts: postToLedger, member creation and erasure, claims, quest
-- completions and store orders add to them in their own transaction), so no page view sums the
-- ledger. The views below say what each figure is, recounted from the ledger and the tables it
-- comes from; `punchcard doctor` compares the two and `doctor --rebuild-figures` (and a change of
-- the project's time zone) replaces the figures with the recount. local_day() is registered on
-- every connection (src/db/connection.ts): the local date of an instant in a time zone.

-- The latest local day the member earned or spent (an award, a reward claim, a game's cost): a
-- member's first such row on a later day counts them active that day and moves their latest day there.
ALTER TABLE members ADD COLUMN active_day TEXT;

-- One b-tree for a day's figures: its own row (kind 'day') and a row per item counted in its top
-- lists (points earned per ledger source, claims per reward, completions per quest), side by
-- side, so an award's figures are one page of the commit, not one per table.
-- last_active: the members whose latest day of activity is this one, so the members active in the
-- days from D to today are the sum of last_active over those days, whatever the range.
CREATE TABLE daily_figures (
  project_id           TEXT NOT NULL,
  day                  TEXT NOT NULL,                -- YYYY-MM-DD in the project's time zone
  kind                 TEXT NOT NULL CHECK (kind = 'day' OR kind = 'source' OR kind = 'reward' OR kind = 'quest'),
  item                 TEXT NOT NULL,                -- '' on the day's row; the source, reward id or quest id
  new_members          INTEGER NOT NULL DEFAULT 0,   -- the day's row: members, then points
  erased_members       INTEGER NOT NULL DEFAULT 0,
  active_members       INTEGER NOT NULL DEFAULT 0,
  last_active          INTEGER NOT NULL DEFAULT 0,
  earned               INTEGER NOT NULL DEFAULT 0,   -- the five flows add up to the day's change in what members hold
  earned_reversed      INTEGER NOT NULL DEFAULT 0,
  redeemed             INTEGER NOT NULL DEFAULT 0,
  redeemed_reimbursed  INTEGER NOT NULL DEFAULT 0,
  expired              INTEGER NOT NULL DEFAULT 0,
  count                INTEGER NOT NULL DEFAULT 0,   -- an item's row: earning rows, claims, completions
  points               INTEGER NOT NULL DEFAULT 0,   -- points earned, spent on the reward, paid for the quest
  PRIMARY KEY (project_id, day, kind, item)          -- a range of days (Overview, points report, top lists), and each write's upsert
) WITHOUT ROWID;

-- Store orders, by the day an order was first received and whether a member placed it. An order
-- counts while it is paid (processing or completed), for its total less its refunds. Shoppers:
-- those whose latest counted order, and whose second latest, fall on this day, so the shoppers
-- with an order from D to today, and those with two or more, are sums over those days.
CREATE TABLE daily_order_figures (
  project_id       TEXT NOT NULL,
  day              TEXT NOT NULL,
  segment          TEXT NOT NULL CHECK (segment = 'member' OR segment = 'guest'),
  orders           INTEGER NOT NULL DEFAULT 0,
  revenue_cents    INTEGER NOT NULL DEFAULT 0,
  shoppers_latest  INTEGER NOT NULL DEFAULT 0,
  shoppers_second  INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (project_id, day, segment)             -- a range of days (the Overview's commerce), and each delivery's upsert
) WITHOUT ROWID;

-- What an order delivery said last, for the figures. Orders received before this migration have
-- no total recorded (NULL) and count from their next delivery on.
ALTER TABLE commerce_orders ADD COLUMN total_cents INTEGER;
ALTER TABLE commerce_orders ADD COLUMN currency TEXT;
-- Who placed it: 'm' and the member's row id, 'g' and a hash of a guest's billing email, NULL for a guest without one.
ALTER TABLE commerce_orders ADD COLUMN shopper TEXT;
-- What the order counts for while it is paid: its total less its refunds; NULL while it does not count.
ALTER TABLE commerce_orders ADD COLUMN revenue_cents INTEGER;
-- A shopper's latest two counted orders (the shoppers columns above), looked up when one of their orders starts or stops counting.
CREATE INDEX commerce_orders_shopper ON commerce_orders(shopper, created_at) WHERE revenue_cents IS NOT NULL;

-- Each ledger row's day and flow: exactly one of the five flows holds its amount (as a positive
-- number), so a day's flows add up to its change in the points members hold. Points brought over
-- from another programme (IMPORTED) are earned, on the import's day, under the source `import`;
-- an import is not the member's activity. Read only by the
-- recounts below, each a pass over the whole ledger in its stored order (NOT INDEXED: through the
-- member index, every row would be a random page).
CREATE VIEW ledger_flows AS
SELECT t.id, t.project_id, t.member_id, local_day(t.created_at, p.timezone) AS day, t.type, t.source, t.amount,
  iif(t.amount > 0 AND (t.type = 'EARNED' OR t.type = 'IMPORTED'), t.amount, 0) AS earned,
  iif(t.amount < 0 AND t.type <> 'EXPIRED' AND t.type <> 'REDEEMED' AND t.type <> 'SPENT', -t.amount, 0) AS earned_reversed,
  iif(t.amount < 0 AND (t.type = 'REDEEMED' OR t.type = 'SPENT'), -t.amount, 0) AS redeemed,
  iif(t.amount > 0 AND t.type <> 'EARNED' AND t.type <> 'IMPORTED', t.amount, 0) AS redeemed_reimbursed,
  iif(t.amount < 0 AND t.type = 'EXPIRED', -t.amount, 0) AS expired,
  (t.amount > 0 AND t.type = 'EARNED') OR (t.amount < 0 AND (t.type = 'REDEEMED' OR t.type = 'SPENT')) AS activity
FROM transactions t NOT INDEXED JOIN projects p ON p.id = t.project_id;

-- Each member's latest day of activity (members.active_day).
CREATE VIEW member_active_days AS
SELECT project_id, member_id, max(day) AS day FROM ledger_flows WHERE activity GROUP BY project_id, member_id;

-- daily_figures recounted: each day's row, then its items (awards per source, claims per reward,
-- completions per quest). A member is active on a day when an activity row of theirs falls on a
-- later day than every one before it in the ledger: on the days they earned or spent, while the
-- clock moves forward; a row dated back (the clock or the time zone moved back across midnight)
-- counts on the later day only, as the writes count it.
CREATE VIEW daily_figures_recount AS
SELECT project_id, day, 'day' AS kind, '' AS item, sum(new_members) AS new_members, sum(erased_members) AS erased_members,
  sum(active_members) AS active_members, sum(last_active) AS last_active, sum(earned) AS earned, sum(earned_reversed) AS earned_reversed,
  sum(redeemed) AS redeemed, sum(redeemed_reimbursed) AS redeemed_reimbursed, sum(expired) AS expired, 0 AS count, 0 AS points
FROM (
  SELECT project_id, day, 0 AS new_members, 0 AS erased_members, 0 AS active_members, 0 AS last_active, sum(earned) AS earned,
    sum(earned_reversed) AS earned_reversed, sum(redeemed) AS redeemed, sum(redeemed_reimbursed) AS redeemed_reimbursed, sum(expired) AS expired
  FROM ledger_flows GROUP BY project_id, day
  UNION ALL
  SELECT project_id, day, 0, 0, sum(newly), sum(newly AND day = latest), 0, 0, 0, 0, 0 FROM (
    SELECT project_id, day, before IS NULL OR day > before AS newly, latest FROM (
      SELECT project_id, day, max(day) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before,
        max(day) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS latest
      FROM (SELECT project_id, member_id, id, day FROM ledger_flows WHERE activity)
      WINDOW w AS (PARTITION BY project_id, member_id ORDER BY id)))
  GROUP BY project_id, day
  UNION ALL
  SELECT m.project_id, local_day(m.created_at, p.timezone), count(*), 0, 0, 0, 0, 0, 0, 0, 0 FROM members m JOIN projects p ON p.id = m.project_id
    GROUP BY 1, 2
  UNION ALL
  SELECT m.project_id, local_day(m.erased_at, p.timezone), 0, count(*), 0, 0, 0, 0, 0, 0, 0 FROM members m JOIN projects p ON p.id = m.project_id
    WHERE m.erased_at IS NOT NULL GROUP BY 1, 2)
GROUP BY project_id, day
UNION ALL
SELECT project_id, day, 'source', source, 0, 0, 0, 0, 0, 0, 0, 0, 0, count(*), sum(earned) FROM ledger_flows
  WHERE earned > 0 GROUP BY project_id, day, source
UNION ALL
SELECT c.project_id, local_day(c.created_at, p.timezone), 'reward', c.reward_id, 0, 0, 0, 0, 0, 0, 0, 0, 0, count(*), sum(c.points_spent)
  FROM reward_claims c JOIN projects p ON p.id = c.project_id GROUP BY 1, 2, 4
UNION ALL
SELECT q.project_id, local_day(q.completed_at, p.timezone), 'quest', q.quest_id, 0, 0, 0, 0, 0, 0, 0, 0, 0, count(*),
  sum(coalesce(q.points_awarded, 0))
  FROM quest_progress q JOIN projects p ON p.id = q.project_id WHERE q.status = 'COMPLETED' GROUP BY 1, 2, 4;

-- daily_order_figures recounted from the orders as they stand.
CREATE VIEW daily_order_figures_recount AS
SELECT project_id, day, segment, sum(orders) AS orders, sum(revenue_cents) AS revenue_cents, sum(rank = 1) AS shoppers_latest,
  sum(rank = 2) AS shoppers_second
FROM (
  SELECT s.project_id, local_day(o.created_at, p.timezone) AS day, iif(o.member_id IS NULL, 'guest', 'member') AS segment, 1 AS orders,
    o.revenue_cents, iif(o.shopper IS NULL, 0, row_number() OVER (PARTITION BY o.shopper ORDER BY o.created_at DESC, o.id DESC)) AS rank
  FROM commerce_orders o JOIN commerce_stores s ON s.id = o.store_id JOIN projects p ON p.id = s.project_id
  WHERE o.revenue_cents IS NOT NULL)
GROUP BY project_id, day, segment;

-- The backfill: every existing project's figures from its ledger (bench/README.md has how long
-- this takes on a 1,000,000-row ledger). No order has a recorded total yet.
INSERT INTO daily_figures SELECT * FROM daily_figures_recount;
UPDATE members SET active_day = a.day FROM member_active_days a WHERE a.member_id = members.id;
