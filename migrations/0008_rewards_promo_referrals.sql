-- Reward claims, promo code redemptions and referrals (Gamification II, first half).

-- A raffle is drawn once: the draw stamps the reward.
ALTER TABLE rewards ADD COLUMN drawn_at TEXT;

CREATE TABLE reward_claims (
  id              INTEGER PRIMARY KEY,
  public_id       TEXT NOT NULL UNIQUE,            -- clm_…
  project_id      TEXT NOT NULL REFERENCES projects(id),
  reward_id       TEXT NOT NULL REFERENCES rewards(id),
  member_id       INTEGER NOT NULL REFERENCES members(id),
  points_spent    INTEGER NOT NULL CHECK (points_spent >= 0),
  via             TEXT NOT NULL CHECK (via = 'redeem' OR via = 'promo'),
  coupon_code     TEXT,                            -- COUPON claims only
  -- COMPLETED (coupon, digital, custom); PENDING → SHIPPED → DELIVERED (physical); ENTERED → WON | LOST (raffle)
  status          TEXT NOT NULL CHECK (status IN ('COMPLETED', 'PENDING', 'SHIPPED', 'DELIVERED', 'ENTERED', 'WON', 'LOST')),
  transaction_id  TEXT,                            -- the REDEEMED transaction's txn_…; NULL when nothing was spent
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL
);
-- Counting a member's claims of one reward (maxClaimsPerUser, userClaims) and GET /members/{externalId}/claims.
CREATE INDEX reward_claims_member ON reward_claims(member_id, reward_id);
-- `punchcard claims list --reward` and the raffle draw read one reward's claims.
CREATE INDEX reward_claims_reward ON reward_claims(reward_id, status);
-- Coupon codes are unique within a project (checked when one is generated).
CREATE UNIQUE INDEX reward_claims_coupon ON reward_claims(project_id, coupon_code) WHERE coupon_code IS NOT NULL;

CREATE TABLE promo_redemptions (
  id              INTEGER PRIMARY KEY,
  public_id       TEXT NOT NULL UNIQUE,            -- prd_…
  project_id      TEXT NOT NULL REFERENCES projects(id),
  promo_code_id   TEXT NOT NULL REFERENCES promo_codes(id),
  member_id       INTEGER NOT NULL REFERENCES members(id),
  points_awarded  INTEGER NOT NULL,
  claim_id        INTEGER REFERENCES reward_claims(id),
  redeemed_at     TEXT NOT NULL
);
-- One redemption per member (the uniqueness holds under any concurrency) and the code's total count (maxRedemptions).
CREATE UNIQUE INDEX promo_redemptions_member ON promo_redemptions(promo_code_id, member_id);

CREATE TABLE referral_codes (
  member_id   INTEGER PRIMARY KEY REFERENCES members(id),
  project_id  TEXT NOT NULL REFERENCES projects(id),
  code        TEXT NOT NULL,
  created_at  TEXT NOT NULL
);
-- POST /referrals/apply finds the referrer by code; codes are unique within a project.
CREATE UNIQUE INDEX referral_codes_code ON referral_codes(project_id, code);

CREATE TABLE referrals (
  id                 INTEGER PRIMARY KEY,
  public_id          TEXT NOT NULL UNIQUE,         -- ref_…
  project_id         TEXT NOT NULL REFERENCES projects(id),
  referrer_id        INTEGER NOT NULL REFERENCES members(id),
  referee_id         INTEGER NOT NULL UNIQUE REFERENCES members(id),  -- a member is referred once
  code               TEXT NOT NULL,                -- the code as applied (the referrer may regenerate theirs later)
  status             TEXT NOT NULL CHECK (status = 'PENDING' OR status = 'CONVERTED'),
  referee_points     INTEGER NOT NULL DEFAULT 0,
  referrer_points    INTEGER NOT NULL DEFAULT 0,
  referrer_rewarded  INTEGER NOT NULL DEFAULT 0 CHECK (referrer_rewarded = 0 OR referrer_rewarded = 1),
  converted_month    TEXT,                         -- YYYY-MM in the project's time zone, for the per-month limit
  created_at         TEXT NOT NULL,
  converted_at       TEXT
);
-- Referral stats and the referrer limits (per month, total) read one referrer's referrals.
CREATE INDEX referrals_referrer ON referrals(referrer_id, converted_month);
