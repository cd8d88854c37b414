package io.clockwork.examples.orders;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/** The example application end to end, in process, with a small run. */
@SpringBootTest(properties = {"orders.count=300", "orders.deadline=1s"})
class OrdersApplicationTest {

    @Autowired
    OrdersDemo demo;
    @Autowired
    PaymentDeadlines deadlines;

    @Test
    void everyOrderIsPaidOrExpiredExactlyOnce() {
        assertThat(demo.getExitCode()).isZero();
        assertThat(deadlines.expired()).isNotEmpty().hasSizeLessThan(300)
                .doesNotContainAnyElementsOf(demo.ledger().toPay());
        assertThat(deadlines.expired()).hasSize(300 - demo.ledger().toPay().size());
    }
}
