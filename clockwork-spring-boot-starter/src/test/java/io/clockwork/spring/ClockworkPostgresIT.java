package io.clockwork.spring;

import com.zaxxer.hikari.HikariDataSource;
import io.clockwork.postgres.fixture.PostgresServerProcess;
import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.QueueStats;
import io.clockwork.testing.Await;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A Spring Boot application with {@code clockwork.backend=postgres} on a real PostgreSQL server: the queues live on
 * the application's DataSource, an offer inside {@code @Transactional} commits or rolls back with the business rows
 * written beside it, listeners receive what committed, and the health indicator and meters see PostgreSQL.
 */
// Closed after the class, while the shared server still runs.
@DirtiesContext
@SpringBootTest(classes = ClockworkPostgresIT.App.class, properties = {
        "clockwork.backend=postgres",
        "clockwork.postgres.schema=spring_it",
        "clockwork.worker.retry.max-attempts=1",
        "clockwork.metrics.stats-interval=100ms"})
class ClockworkPostgresIT {

    record Deadline(String order) {
    }

    /** The application's service: an order row and its payment deadline in one transaction. */
    static class Orders {
        private final JdbcTemplate jdbc;
        private final ClockworkQueues queues;

        Orders(JdbcTemplate jdbc, ClockworkQueues queues) {
            this.jdbc = jdbc;
            this.queues = queues;
        }

        @Transactional
        public void place(String order, boolean refused) {
            jdbc.update("INSERT INTO spring_it_orders (id) VALUES (?)", order);
            queues.queue("deadlines", Deadline.class).offer(new Deadline(order), Duration.ZERO);
            if (refused) {
                throw new IllegalStateException("payment refused for " + order);
            }
        }
    }

    static class Listeners {
        final Set<String> due = ConcurrentHashMap.newKeySet();

        @ClockworkListener(queue = "deadlines", concurrency = 4)
        void expire(Deadline deadline) {
            due.add(deadline.order());
        }
    }

    /**
     * The application: its pool, transaction manager and JdbcTemplate are the beans Spring Boot's JDBC starter would
     * give it, declared here so that the starter's other tests run without a database.
     */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    @EnableTransactionManagement
    static class App {
        @Bean(destroyMethod = "close")
        HikariDataSource dataSource() {
            HikariDataSource ds = new HikariDataSource();
            ds.setJdbcUrl(PostgresServerProcess.shared().jdbcUrl());
            ds.setMaximumPoolSize(8);
            return ds;
        }

        @Bean
        DataSourceTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }

        @Bean
        JdbcTemplate jdbcTemplate(DataSource dataSource) {
            return new JdbcTemplate(dataSource);
        }

        @Bean
        Orders orders(JdbcTemplate jdbc, ClockworkQueues queues) {
            jdbc.execute("CREATE TABLE IF NOT EXISTS spring_it_orders (id text PRIMARY KEY)");
            return new Orders(jdbc, queues);
        }

        @Bean
        Listeners listeners() {
            return new Listeners();
        }
    }

    @Autowired
    ClockworkQueues queues;
    @Autowired
    Orders orders;
    @Autowired
    Listeners listeners;
    @Autowired
    JdbcTemplate jdbc;
    @Autowired
    MeterRegistry registry;
    @Autowired
    Map<String, HealthIndicator> indicators;

    @Test
    void anOfferInsideTransactionalIsDeliveredExactlyWhenItsTransactionCommits() {
        assertThat(queues.backend()).isEqualTo(ClockworkProperties.Backend.POSTGRES);
        int placed = 0;
        for (int i = 0; i < 200; i++) {
            boolean refused = i % 2 == 1;
            try {
                orders.place("order-" + i, refused);
                placed++;
            } catch (IllegalStateException e) {
                assertThat(refused).as("only refused payments throw").isTrue();
            }
        }
        assertThat(placed).isEqualTo(100);
        List<String> committed = jdbc.queryForList("SELECT id FROM spring_it_orders", String.class);
        assertThat(committed).hasSize(100);
        Await.until("every committed deadline handled", () -> listeners.due.size() >= 100);
        DelayedQueue<Deadline> deadlines = queues.queue("deadlines", Deadline.class);
        Await.until("the queue drained", () -> {
            QueueStats s = deadlines.stats();
            return s.delayed() + s.ready() + s.inFlight() == 0;
        });
        assertThat(listeners.due).as("exactly the committed orders' deadlines")
                .containsExactlyInAnyOrderElementsOf(committed);
        Await.until("acks counted", () -> registry.get("clockwork.queue.acked").tag("queue", "deadlines")
                .tag("backend", "postgres").counter().count() == 100);
    }

    @Test
    void anOfferInATransactionOfAnotherDataSourceIsRefusedAndWritesNothing() {
        DelayedQueue<String> other = queues.queue("other-resource", String.class);
        DriverManagerDataSource elsewhere = new DriverManagerDataSource(PostgresServerProcess.shared().jdbcUrl());
        TransactionTemplate tx = new TransactionTemplate(new DataSourceTransactionManager(elsewhere));
        assertThatThrownBy(() -> tx.executeWithoutResult(status -> other.offer("lost?", Duration.ZERO)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cannot join this thread's transaction")
                .hasMessageContaining("DataSourceTransactionManager");
        assertThat(other.stats().ready()).isZero();
        assertThat(other.offer("outside any transaction", Duration.ZERO)).isNotNull();
        assertThat(other.stats().ready()).isEqualTo(1);
    }

    @Test
    void asyncOffersInsideATransactionJoinItAndCompleteAtOnce() throws Exception {
        DelayedQueue<String> q = queues.queue("async-in-tx", String.class);
        TransactionTemplate tx = new TransactionTemplate(new DataSourceTransactionManager(jdbc.getDataSource()));
        tx.executeWithoutResult(status -> {
            assertThat(q.offerAsync("kept", Duration.ZERO).toCompletableFuture()).isCompleted();
            assertThat(q.offerAsync("m-1", "also kept", Duration.ZERO).toCompletableFuture()).isCompleted();
        });
        assertThatThrownBy(() -> tx.executeWithoutResult(status -> {
            q.offerAsync("rolled back", Duration.ZERO);
            throw new IllegalStateException("business rule broken");
        })).hasMessageContaining("business rule broken");
        assertThat(q.stats().ready()).as("the two committed, not the rolled back one").isEqualTo(2);
    }

    @Test
    void theHealthIndicatorReadsPostgres() {
        Health h = indicators.get("clockworkHealthIndicator").health(true);
        assertThat(h.getStatus()).isEqualTo(Status.UP);
        assertThat(h.getDetails().get("postgres")).asString().matches("\\d+\\.\\d+.*");
    }
}
