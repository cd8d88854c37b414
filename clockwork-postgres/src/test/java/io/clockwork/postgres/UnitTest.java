package io.clockwork.postgres;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** How a SQL unit's named parameters become JDBC placeholders, and the schema its tables are in. */
class UnitTest {

    @Test
    void namedParametersBecomePlaceholdersAndCastsStay() {
        Unit u = Unit.of("offer", "\"clockwork\"",
                "SELECT :queue, :id::text, a::bytea FROM ${schema}.t WHERE q = :queue AND x = ':no'");
        assertThat(u.sql()).isEqualTo("SELECT ?, ?::text, a::bytea FROM \"clockwork\".t WHERE q = ? AND x = ':no'");
        assertThat(u.name()).isEqualTo("offer");
    }

    @Test
    void everyUnitOfTheQueueNamesOnlyParametersTheStoreBinds() {
        QueueSql sql = new QueueSql("some_schema");
        for (Unit u : new Unit[] {sql.offer, sql.offerReplace, sql.offerBatch, sql.sweep, sql.poll, sql.ack,
                sql.ackPoll, sql.ackBatch, sql.nack, sql.extend, sql.release, sql.kill, sql.cancel, sql.reschedule,
                sql.pause, sql.isPaused, sql.open, sql.deadList, sql.deadRequeue, sql.deadPurge, sql.stats,
                sql.counters}) {
            assertThat(u.sql()).as(u.name()).doesNotContain("${schema}").doesNotContainPattern("(?<!:):[a-z]");
        }
    }
}
