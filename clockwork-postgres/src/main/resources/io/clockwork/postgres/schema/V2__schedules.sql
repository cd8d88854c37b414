-- Clockwork's PostgreSQL queue, version 2: the schedules of every PostgresSchedules in one schema.
--
-- ${schema} stands for the schema's name, as in V1__queue.sql; apply this file after it, the same way:
--   sed 's/\${schema}/clockwork/g' V2__schedules.sql | psql -v ON_ERROR_STOP=1 --single-transaction
-- Nothing here needs a superuser.

-- One row per schedule of a queue. Its occurrences are messages of clockwork_messages with the id
-- '<name>@<fire time in epoch ms>'. Fire times (next_fire, last_fire) and look_at are epoch milliseconds on the
-- database's clock, the unit in which every client computes a rule's fire times.
--   rule, misfire    the rule's and the misfire policy's specs (rate:PT1M, cron:0 9 * * MON-FRI|UTC; once, skip,
--                    catch-up:<n>), parsed by each client
--   spread_ms        the fixed delay of each occurrence after its fire time (from the name and the spread window)
--   payload, headers the message each occurrence carries: the queue codec's bytes, headers as clockwork_messages
--                    holds them
--   next_fire        the next fire time; NULL while a fixed-delay schedule's occurrence is unfinished, or when the
--                    rule never fires again
--   last_fire        the latest fire time that produced an occurrence; NULL if none yet
--   outstanding      the id of a fixed-delay schedule's unfinished occurrence; NULL if none
--   look_at          when a scheduler should look at the schedule next (its next fire time, or when to check the
--                    outstanding occurrence again); NULL while paused or when it never fires again
-- A scheduler's pass locks the due rows with FOR UPDATE SKIP LOCKED and, in the same transaction, inserts their
-- occurrences and moves them on: each pass rewrites next_fire, last_fire and look_at of the rows it fires, so the
-- table leaves room on each page for the new row version (fillfactor 70).
CREATE TABLE ${schema}.clockwork_schedules (
    queue       text    NOT NULL,
    name        text    NOT NULL,
    rule        text    NOT NULL,
    misfire     text    NOT NULL,
    spread_ms   bigint  NOT NULL DEFAULT 0,
    payload     bytea   NOT NULL,
    headers     bytea,
    paused      boolean NOT NULL DEFAULT false,
    next_fire   bigint,
    last_fire   bigint,
    outstanding text,
    look_at     bigint,
    PRIMARY KEY (queue, name)
) WITH (fillfactor = 70);

-- A pass's due schedules (look_at up to now, earliest first) and a scheduler's sleep until the earliest look_at:
-- one entry per schedule that is not paused, so the index stays as small as the number of schedules.
CREATE INDEX clockwork_schedules_look ON ${schema}.clockwork_schedules (queue, look_at)
    WHERE look_at IS NOT NULL;

INSERT INTO ${schema}.clockwork_schema_version (version, file) VALUES (2, 'V2__schedules.sql');
