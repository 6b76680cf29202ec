-- WooCommerce: a connected store per project, the orders it reported, its customers, and the
-- coupons created in it for COUPON reward claims (a durable job table: a store that is down
-- gets its coupon later).

-- One live store per project. A disconnected store keeps its row (deleted_at), so reconnecting
-- the same site revives it with its order history and no order earns twice.
CREATE TABLE commerce_stores (
  id               TEXT PRIMARY KEY,                -- store_…
  project_id       TEXT NOT NULL REFERENCES projects(id),
  site_url         TEXT NOT NULL,
  organization_id  TEXT NOT NULL,
  consumer_key     TEXT NOT NULL,                   -- sealed (SecretBox)
  consumer_secret  TEXT NOT NULL,                   -- sealed
  webhook_secret   TEXT NOT NULL,                   -- sealed; WooCommerce signs deliveries with it
  webhooks         TEXT NOT NULL DEFAULT '[]',      -- JSON [{id, topic}] registered in the store
  settings         TEXT NOT NULL DEFAULT '{}',      -- JSON, only the settings changed from their defaults
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL,
  deleted_at       TEXT
);
-- The project's live store (connect, disconnect, settings, coupon claims): at most one.
CREATE UNIQUE INDEX commerce_stores_live ON commerce_stores(project_id) WHERE deleted_at IS NULL;
-- Reconnecting a disconnected site finds its old row.
CREATE INDEX commerce_stores_site ON commerce_stores(project_id, site_url);

-- One row per store order: the dedupe key (store, WooCommerce order id), never the delivery id.
CREATE TABLE commerce_orders (
  id              INTEGER PRIMARY KEY,
  store_id        TEXT NOT NULL REFERENCES commerce_stores(id),
  order_id        INTEGER NOT NULL,                 -- WooCommerce's order id
  member_id       INTEGER REFERENCES members(id),   -- NULL for an excluded guest order
  status          TEXT NOT NULL,                    -- the latest status applied
  version         TEXT NOT NULL,                    -- date_modified_gmt of the latest state applied (older deliveries are ignored)
  full_points     INTEGER,                          -- what the whole order earns, fixed at its first award
  awarded         INTEGER NOT NULL DEFAULT 0,       -- 1 while the order's points are held by the member
  net_points      INTEGER NOT NULL DEFAULT 0,       -- the sum of the ledger rows for this order
  refunded_points INTEGER NOT NULL DEFAULT 0,       -- the refunds' share of full_points taken back since the latest award
  shortfall       INTEGER NOT NULL DEFAULT 0,       -- points a deduction could not take (the balance was lower)
  excluded        TEXT,                             -- why the order earns nothing (guest, min order), else NULL
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL
);
-- Every delivery looks its order up by (store, order id).
CREATE UNIQUE INDEX commerce_orders_key ON commerce_orders(store_id, order_id);
-- Referral conversion on a first order asks whether the member has an earlier awarded order.
CREATE INDEX commerce_orders_member ON commerce_orders(member_id) WHERE member_id IS NOT NULL;

-- Each WooCommerce refund is applied once, however often its order is re-sent.
CREATE TABLE commerce_order_refunds (
  id          INTEGER PRIMARY KEY,
  order_row   INTEGER NOT NULL REFERENCES commerce_orders(id),
  refund_id   INTEGER NOT NULL,
  cents       INTEGER NOT NULL,                     -- the refunded amount; points follow from the order's running sum
  created_at  TEXT NOT NULL
);
-- The refunds of one order, and whether one was seen.
CREATE UNIQUE INDEX commerce_order_refunds_key ON commerce_order_refunds(order_row, refund_id);

-- A WooCommerce customer and the member it is.
CREATE TABLE commerce_customers (
  id           INTEGER PRIMARY KEY,
  store_id     TEXT NOT NULL REFERENCES commerce_stores(id),
  customer_id  INTEGER NOT NULL,
  member_id    INTEGER NOT NULL REFERENCES members(id),
  created_at   TEXT NOT NULL
);
-- customer.updated and orders find the member of a store customer.
CREATE UNIQUE INDEX commerce_customers_key ON commerce_customers(store_id, customer_id);

-- A coupon to create in the store for a claim: a job, retried with back-off while the store is down.
CREATE TABLE commerce_coupons (
  id               INTEGER PRIMARY KEY,
  public_id        TEXT NOT NULL UNIQUE,            -- cpn_…
  project_id       TEXT NOT NULL REFERENCES projects(id),
  store_id         TEXT NOT NULL REFERENCES commerce_stores(id),
  claim_id         INTEGER NOT NULL UNIQUE REFERENCES reward_claims(id),
  code             TEXT NOT NULL,                   -- the code asked for; the store may answer another
  discount_type    TEXT NOT NULL CHECK (discount_type IN ('PERCENTAGE', 'FIXED_CART', 'FIXED_PRODUCT')),
  discount_cents   INTEGER NOT NULL,                -- the value × 100 (a percentage too), so it is exact
  email            TEXT,
  status           TEXT NOT NULL CHECK (status IN ('PENDING', 'CREATED', 'FAILED')),
  store_coupon_id  INTEGER,
  attempts         INTEGER NOT NULL DEFAULT 0,
  run_at           TEXT NOT NULL,                   -- when it is next due; a claim moves it to the lease's end
  last_error       TEXT,
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL
);
-- The runner claims due PENDING coupons by run_at.
CREATE INDEX commerce_coupons_due ON commerce_coupons(run_at) WHERE status = 'PENDING';
