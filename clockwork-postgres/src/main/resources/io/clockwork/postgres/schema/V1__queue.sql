-- Clockwork's PostgreSQL queue, version 1: the tables of every PostgresDelayedQueue in one schema.
--
-- ${schema} stands for the schema's name (default clockwork). The library applies this file itself when a queue is
-- built with autoCreateSchema(true), the default. To apply it by hand, create the schema, then substitute the
-- placeholder, e.g.:
--   sed 's/\${schema}/clockwork/g' V1__queue.sql | psql -v ON_ERROR_STOP=1 --single-transaction
-- The file records its own version (the last statements below), which autoCreateSchema(false) checks.
-- Nothing here needs a superuser: the owner of the schema, or a role with CREATE on it, can run it.

-- Each queue a client has built, and its pause flag (pause/resume persist here, for every client).
CREATE TABLE ${schema}.clockwork_queues (
    name       text        PRIMARY KEY,
    paused     boolean     NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- Orders messages within a due time (offer order), and makes each delivery's receipt (the lease token): every move
-- of a message (take, nack, release, reschedule, replace) gives it a new number, so a stale receipt never matches.
CREATE SEQUENCE ${schema}.clockwork_seq AS bigint CACHE 1;

-- Every message of every queue, in one of three states:
--   0 scheduled: delayed until due, then ready (due <= now);
--   1 in flight: taken by a delivery whose lease ends at due; seq is its receipt;
--   2 dead:      a dead letter, dead since due.
-- One row per message for its whole life: a state change is an UPDATE of a row with room on its page
-- (fillfactor 70), and an id is taken whatever the state, through the primary key alone.
CREATE TABLE ${schema}.clockwork_messages (
    queue      text        NOT NULL,
    id         text        NOT NULL,
    state      smallint    NOT NULL DEFAULT 0,
    due        timestamptz NOT NULL,
    seq        bigint      NOT NULL,
    attempts   integer     NOT NULL DEFAULT 0,
    priority   smallint    NOT NULL DEFAULT 0,
    payload    bytea       NOT NULL,
    headers    bytea,
    last_error text,
    PRIMARY KEY (queue, id)
) WITH (fillfactor = 70);

-- The take (the earliest due, then offer order, up to now: a range scan that stops at the first message not due)
-- and a queue's next due time (how long an idle consumer sleeps), among scheduled messages only: in-flight and dead
-- messages are not in it.
CREATE INDEX clockwork_messages_scheduled ON ${schema}.clockwork_messages (queue, due, seq)
    WHERE state = 0;
-- The take among messages with a priority other than the default (0): by priority, then due, then offer order.
-- Only such messages are in it, so a queue without priorities pays nothing for it.
CREATE INDEX clockwork_messages_prioritized ON ${schema}.clockwork_messages (queue, priority DESC, due, seq)
    WHERE state = 0 AND priority <> 0;
-- Leases by their end, for the sweep that returns expired deliveries.
CREATE INDEX clockwork_messages_leases ON ${schema}.clockwork_messages (queue, due)
    WHERE state = 1;
-- Dead letters by death, oldest first, for listing and retention.
CREATE INDEX clockwork_messages_dead ON ${schema}.clockwork_messages (queue, due, seq)
    WHERE state = 2;

-- Cumulative event counts, in up to 64 rows per queue (by the backend's process id), so that concurrent
-- transactions rarely wait on one row; a queue's counts are the sums.
CREATE TABLE ${schema}.clockwork_counters (
    queue         text     NOT NULL,
    shard         smallint NOT NULL,
    offered       bigint   NOT NULL DEFAULT 0,
    delivered     bigint   NOT NULL DEFAULT 0,
    acked         bigint   NOT NULL DEFAULT 0,
    retried       bigint   NOT NULL DEFAULT 0,
    dead_lettered bigint   NOT NULL DEFAULT 0,
    trimmed       bigint   NOT NULL DEFAULT 0,
    PRIMARY KEY (queue, shard)
) WITH (fillfactor = 50);

-- The versions of this schema applied so far, one row per file.
CREATE TABLE IF NOT EXISTS ${schema}.clockwork_schema_version (
    version    integer     PRIMARY KEY,
    file       text        NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
INSERT INTO ${schema}.clockwork_schema_version (version, file) VALUES (1, 'V1__queue.sql');
