-- Clockwork's PostgreSQL queue, version 3: flow control, the rate limits' sliding logs.
--
-- ${schema} stands for the schema's name (default clockwork); apply it by hand as V1__queue.sql says, after V2.
-- Only queues built with a rate limit have rows here: a queue without one never reads or writes these tables.

-- One row per rate limit of a queue (grp '' is the queue's own limit): its permits and interval (those of the
-- client built last with the limit), how many deliveries its log holds within the interval (used), and how many
-- polls it held back (held, the rateLimited counter). A limited take locks this row for its transaction, so the
-- takes of one limited queue decide their permits one after the other, in every process, on the database's clock;
-- other queues never wait on it.
CREATE TABLE ${schema}.clockwork_rate_limits (
    queue       text    NOT NULL,
    grp         text    NOT NULL,
    permits     integer NOT NULL,
    interval_ms bigint  NOT NULL,
    used        integer NOT NULL DEFAULT 0,
    held        bigint  NOT NULL DEFAULT 0,
    PRIMARY KEY (queue, grp)
) WITH (fillfactor = 50);

-- The sliding log: a row per take that delivered under a limit, at the take's time, with how many it delivered. Rows
-- older than the interval are deleted by the next take, which subtracts them from used: a limit keeps at most
-- permits rows, and its oldest row says when the next permit frees.
CREATE TABLE ${schema}.clockwork_rate_log (
    queue text        NOT NULL,
    grp   text        NOT NULL,
    at    timestamptz NOT NULL,
    n     integer     NOT NULL
);
CREATE INDEX clockwork_rate_log_at ON ${schema}.clockwork_rate_log (queue, grp, at);

INSERT INTO ${schema}.clockwork_schema_version (version, file) VALUES (3, 'V3__flow.sql');
