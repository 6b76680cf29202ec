-- The web admin (docs/admin.md): operator accounts, their roles per project, invites, sessions,
-- the browsers they signed in from (device cookies), and the audit log. Operators are apart from
-- members and API keys: nothing here is reachable with a key, and no member row points here.

CREATE TABLE operators (
  id                  TEXT PRIMARY KEY,                -- opr_…
  email               TEXT NOT NULL COLLATE NOCASE,
  name                TEXT,
  password_hash       TEXT,                            -- scrypt$N$r$p$salt$hash; NULL until the first invite is accepted
  totp_secret         TEXT,                            -- sealed (SecretBox) base32 secret of the enabled second factor, else NULL
  totp_pending        TEXT,                            -- sealed secret being enrolled (POST /me/totp), until confirmed
  totp_last_step      INTEGER NOT NULL DEFAULT 0,      -- the last 30-second step a code was accepted for: a code is used once
  created_at          TEXT NOT NULL,
  last_sign_in_at     TEXT,
  password_changed_at TEXT
);
-- Sign-in, invites and `punchcard admin …` find an operator by email, whatever its case.
CREATE UNIQUE INDEX operators_email ON operators(email);

-- An operator's role in a project: owner, staff or viewer. No row, or one not yet accepted: the
-- project does not exist for them. A role given to an account with no password waits for the
-- link of that invite, so that whoever holds one project's link never reaches another project's.
CREATE TABLE operator_roles (
  operator_id TEXT NOT NULL REFERENCES operators(id) ON DELETE CASCADE,
  project_id  TEXT NOT NULL REFERENCES projects(id),
  role        TEXT NOT NULL CHECK (role IN ('owner', 'staff', 'viewer')),
  invited_at  TEXT NOT NULL,
  accepted_at TEXT,
  PRIMARY KEY (operator_id, project_id)
) WITHOUT ROWID;
-- GET /operators: a project's operators; the last-owner check.
CREATE INDEX operator_roles_project ON operator_roles(project_id, role);

-- One-time links: an invite (project and role) or a reset (neither). The token is stored as its SHA-256.
CREATE TABLE operator_invites (
  id          INTEGER PRIMARY KEY,
  token_hash  TEXT NOT NULL,
  operator_id TEXT NOT NULL REFERENCES operators(id) ON DELETE CASCADE,
  project_id  TEXT REFERENCES projects(id),
  role        TEXT,
  created_at  TEXT NOT NULL,
  expires_at  TEXT NOT NULL,
  used_at     TEXT
);
-- GET and POST /invites/:token look the link up by its hash.
CREATE UNIQUE INDEX operator_invites_token ON operator_invites(token_hash);
-- A reset or a removal ends the operator's open links.
CREATE INDEX operator_invites_operator ON operator_invites(operator_id);

-- Signed-in browsers. The cookie holds a random token; only its SHA-256 is kept.
CREATE TABLE operator_sessions (
  id           INTEGER PRIMARY KEY,
  public_id    TEXT NOT NULL,                          -- ses_…, what GET /sessions shows and DELETE /sessions/:id names
  operator_id  TEXT NOT NULL REFERENCES operators(id) ON DELETE CASCADE,
  token_hash   TEXT NOT NULL,
  created_at   TEXT NOT NULL,
  last_seen_at TEXT NOT NULL,
  expires_at   TEXT NOT NULL,                          -- created_at + 7 days: the absolute limit
  user_agent   TEXT,
  address      TEXT
);
-- Every admin request finds its session by the cookie's hash.
CREATE UNIQUE INDEX operator_sessions_token ON operator_sessions(token_hash);
-- GET /sessions lists an operator's sessions; a reset, removal or role change ends them all.
CREATE INDEX operator_sessions_operator ON operator_sessions(operator_id);

-- Browsers that signed in successfully to an account (OWASP's device cookies): sign-in attempts that
-- carry one are limited per device, never by the lockout others caused on the account or address.
CREATE TABLE operator_devices (
  id          INTEGER PRIMARY KEY,
  token_hash  TEXT NOT NULL,
  operator_id TEXT NOT NULL REFERENCES operators(id) ON DELETE CASCADE,
  created_at  TEXT NOT NULL
);
-- Sign-in checks the device cookie by its hash.
CREATE UNIQUE INDEX operator_devices_token ON operator_devices(token_hash);
-- A reset or removal forgets the operator's devices.
CREATE INDEX operator_devices_operator ON operator_devices(operator_id);

-- Every change by an operator (the admin), the CLI or a secret key (the server API), written in the
-- change's own transaction. Rows are appended in time order, so the row id orders them by time and
-- pruning walks from the lowest id. No foreign key: entries outlive what they name.
CREATE TABLE audit_log (
  id          INTEGER PRIMARY KEY,
  project_id  TEXT,                                    -- NULL: server-wide (a CLI command on no project)
  at          TEXT NOT NULL,
  actor_type  TEXT NOT NULL,                           -- operator, cli or api
  actor_id    TEXT NOT NULL,                           -- the operator's id, the key's id, the OS user for the CLI
  actor_label TEXT NOT NULL,                           -- the operator's email, the key's prefix, "cli"
  action      TEXT NOT NULL,                           -- "PATCH /catalog/rewards/:id", "keys create"
  target      TEXT NOT NULL,                           -- what it changed: an id, a member's externalId
  summary     TEXT NOT NULL                            -- JSON {before?, after?} without secrets or personal data
);
-- GET /audit: a project's entries newest first; its filters read on from here.
CREATE INDEX audit_log_project ON audit_log(project_id, id);

-- GET /claims: a project's claims by status, newest first (the claims table had no per-project index).
CREATE INDEX reward_claims_project ON reward_claims(project_id, status, id);
