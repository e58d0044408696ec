-- The write limit of issue 15, as given in the project's shared bench (../shared/bench/schema.sql):
-- a records-service-shaped schema in a database of its own (bench/run.ts creates and drops it).
-- Records-service-shaped schema for the database physical-limit benchmark.
-- Parameters (psql -v): orgs (number of organizations), rows (records), cols (cells per record).
DROP TABLE IF EXISTS version, cell, "row", organization CASCADE;

CREATE TABLE organization (
  id             bigserial PRIMARY KEY,
  name           text        NOT NULL,
  credit_balance bigint      NOT NULL CHECK (credit_balance >= 0),
  created_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE "row" (
  id              bigserial PRIMARY KEY,
  organization_id bigint      NOT NULL REFERENCES organization(id),
  name            text        NOT NULL,
  is_archived     boolean     NOT NULL DEFAULT false,
  is_locked       boolean     NOT NULL DEFAULT false,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX row_org_id_idx ON "row" (organization_id, id);

CREATE TABLE cell (
  id         bigserial PRIMARY KEY,
  row_id     bigint      NOT NULL REFERENCES "row"(id),
  column_id  int         NOT NULL,
  data       text        NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (row_id, column_id)
);

CREATE TABLE version (
  id            bigserial PRIMARY KEY,
  row_id        bigint      NOT NULL REFERENCES "row"(id),
  version       int         NOT NULL,
  data          jsonb       NOT NULL,
  hash          text        NOT NULL,
  previous_hash text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  UNIQUE (row_id, version)           -- also serves "latest version of a row" lookups
);

INSERT INTO organization (name, credit_balance)
SELECT 'org ' || g, 1000000000000 FROM generate_series(1, :orgs) g;

-- Records are spread round-robin over the organizations.
INSERT INTO "row" (organization_id, name)
SELECT ((g - 1) % :orgs) + 1, 'row ' || g FROM generate_series(1, :rows) g;

INSERT INTO cell (row_id, column_id, data)
SELECT r, c, 'initial value ' || r || '/' || c
FROM generate_series(1, :rows) r, generate_series(1, :cols) c;

-- Version 1 (genesis) for every record.
INSERT INTO version (row_id, version, data, hash, previous_hash)
SELECT r, 1, jsonb_build_object('row_id', r, 'version', 1),
       encode(sha256(convert_to('genesis:' || r, 'UTF8')), 'hex'), NULL
FROM generate_series(1, :rows) r;

VACUUM ANALYZE;
