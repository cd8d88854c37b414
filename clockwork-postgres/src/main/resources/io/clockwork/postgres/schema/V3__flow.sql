-- Clockwork's PostgreSQL queue, version 3: flow control (fair groups of messages, rate limits).
--
-- ${schema} stands for the schema's name (default clockwork); apply it by hand as V1__queue.sql says, after V2.
-- A queue that uses neither groups nor a rate limit writes nothing here: its messages' grp is NULL, so they are in
-- neither new index, and its plain poll reads clockwork_queues' row as before.

-- A message's group (Message.group; NULL for none). Adding a nullable column rewrites nothing.
ALTER TABLE ${schema}.clockwork_messages ADD COLUMN grp text;
-- The grouped take: each group's due messages in due order (a range scan that stops at the first message not due),
-- and the groups themselves (a loose index scan over grp). Only messages with a group are in it.
CREATE INDEX clockwork_messages_grouped ON ${schema}.clockwork_messages (queue, grp, due, seq)
    WHERE state = 0 AND grp IS NOT NULL;
-- A group's messages with a priority other than the default, by priority: the grouped take reads them beside the
-- group's first messages by due time, so a later message of a higher priority goes first.
CREATE INDEX clockwork_messages_grouped_prioritized ON ${schema}.clockwork_messages
    (queue, grp, priority DESC, due, seq) WHERE state = 0 AND grp IS NOT NULL AND priority <> 0;
-- A group's messages in flight, counted for maxInFlightPerGroup: a delivery holds its group's slot while its row is
-- in flight (until acked, nacked, released, dead, cancelled, or its lease expired and a sweep took it back).
CREATE INDEX clockwork_messages_group_flight ON ${schema}.clockwork_messages (queue, grp)
    WHERE state = 1 AND grp IS NOT NULL;

-- grouped: a message with a group was offered, so every client takes with the grouped take (the plain poll takes
-- nothing from such a queue). flow_pass: the pass of the queue's last grouped delivery, where a group that returns
-- from idleness starts (last in the current round).
ALTER TABLE ${schema}.clockwork_queues ADD COLUMN grouped boolean NOT NULL DEFAULT false,
    ADD COLUMN flow_pass float8 NOT NULL DEFAULT 0;

-- Each group's place in the round robin ('' is the unnamed group of messages without one): its pass (each delivery
-- adds 1/weight; the group with the smallest pass goes next) and last (when it was last served, which breaks ties:
-- the group served longest ago first). Updated by the grouped take that delivers from the group.
CREATE TABLE ${schema}.clockwork_groups (
    queue    text   NOT NULL,
    grp      text   NOT NULL,
    pass     float8 NOT NULL DEFAULT 0,
    last_seq bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (queue, grp)
) WITH (fillfactor = 50);

-- The queue-wide rate limit of a queue (grp '', the only key this table holds): its permits and interval (those of the
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

-- The sliding logs: a row per take that delivered under a limit (grp '' the queue's, else the group's
-- groupRateLimit), at the take's time, with how many it delivered. Rows older than the interval are deleted by a
-- later take (the queue's limit subtracts them from used; a group's limit sums its rows within the interval): a
-- limit keeps at most permits rows, and the oldest says when the next permit frees.
CREATE TABLE ${schema}.clockwork_rate_log (
    queue text        NOT NULL,
    grp   text        NOT NULL,
    at    timestamptz NOT NULL,
    n     integer     NOT NULL
);
CREATE INDEX clockwork_rate_log_at ON ${schema}.clockwork_rate_log (queue, grp, at);

INSERT INTO ${schema}.clockwork_schema_version (version, file) VALUES (3, 'V3__flow.sql');
