-- The demo shop (/demo, `serve --demo`) runs only on a project `seed --demo` created for it and
-- marked here; a real project can never become the demo's, so the demo never signs anyone into it.
-- At most one project is the demo project.
ALTER TABLE projects ADD COLUMN demo INTEGER NOT NULL DEFAULT 0 CHECK (demo IN (0, 1));
CREATE UNIQUE INDEX projects_one_demo ON projects(demo) WHERE demo = 1;

-- Share links `/r/CODE` find the member by code alone: new codes are unique across projects.
-- Not a UNIQUE index: two projects may already hold the same code (then /r/ finds neither).
CREATE INDEX referral_codes_by_code ON referral_codes(code);
