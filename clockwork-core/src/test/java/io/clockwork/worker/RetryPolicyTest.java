package io.clockwork.worker;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RetryPolicyTest {

    @Test
    void fixedDelayIsTheSameForEveryAttemptWithoutJitter() {
        RetryPolicy p = RetryPolicy.fixed(Duration.ofSeconds(3));
        for (int attempt = 1; attempt < 10; attempt++) {
            assertThat(p.delayAfter(attempt)).isEqualTo(Duration.ofSeconds(3));
        }
    }

    @Test
    void exponentialDelayDoublesUpToTheCap() {
        RetryPolicy p = RetryPolicy.builder().initialDelay(Duration.ofMillis(100)).maxDelay(Duration.ofSeconds(1))
                .jitter(0).build();
        assertThat(p.delayAfter(1)).isEqualTo(Duration.ofMillis(100));
        assertThat(p.delayAfter(2)).isEqualTo(Duration.ofMillis(200));
        assertThat(p.delayAfter(4)).isEqualTo(Duration.ofMillis(800));
        assertThat(p.delayAfter(5)).isEqualTo(Duration.ofSeconds(1));
        assertThat(p.delayAfter(Integer.MAX_VALUE)).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void jitterTakesUpToItsShareOffAndNeverExceedsTheCap() {
        RetryPolicy p = RetryPolicy.exponential(Duration.ofSeconds(1), Duration.ofSeconds(10));
        assertThat(p.jitter()).isEqualTo(RetryPolicy.DEFAULT_JITTER);
        assertThat(p.delayAfter(1, 0.0)).isEqualTo(Duration.ofSeconds(1));
        assertThat(p.delayAfter(1, 0.5)).isEqualTo(Duration.ofMillis(900));
        assertThat(p.delayAfter(20, 0.999)).isBetween(Duration.ofSeconds(8), Duration.ofSeconds(10));
        for (int i = 0; i < 1000; i++) {
            assertThat(p.delayAfter(3)).isBetween(Duration.ofMillis(3200), Duration.ofSeconds(4));
        }
    }

    @Test
    void noRetryClassesAndTheirSubclassesAreNeverRetried() {
        RetryPolicy p = RetryPolicy.builder().noRetry(IllegalArgumentException.class, UncheckedIOException.class)
                .build();
        assertThat(p.retries(new NumberFormatException())).isFalse();
        assertThat(p.retries(new UncheckedIOException(new IOException()))).isFalse();
        assertThat(p.retries(new IllegalStateException())).isTrue();
        assertThat(RetryPolicy.DEFAULT.retries(new IllegalArgumentException())).isTrue();
        assertThat(RetryPolicy.DEFAULT.maxAttempts()).isEqualTo(RetryPolicy.DEFAULT_MAX_ATTEMPTS);
    }

    @Test
    void badOptionsFailAtOnceNamingTheOption() {
        assertThatThrownBy(() -> RetryPolicy.builder().initialDelay(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("initialDelay");
        assertThatThrownBy(() -> RetryPolicy.builder().multiplier(0.5))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("multiplier");
        assertThatThrownBy(() -> RetryPolicy.builder().jitter(1.5))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("jitter");
        assertThatThrownBy(() -> RetryPolicy.builder().maxAttempts(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxAttempts");
        assertThatThrownBy(() -> RetryPolicy.builder().jitter(0.1).jitter(0.2))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("jitter");
        assertThatThrownBy(() -> RetryPolicy.builder().initialDelay(Duration.ofSeconds(2))
                .maxDelay(Duration.ofSeconds(1)).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("maxDelay");
        assertThatThrownBy(() -> RetryPolicy.builder().noRetry(IllegalStateException.class, null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("classes[1]");
        assertThatThrownBy(() -> new RetryLater(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("delay");
    }

    @Test
    void equalPoliciesAreEqual() {
        assertThat(RetryPolicy.fixed(Duration.ofSeconds(1))).isEqualTo(RetryPolicy.fixed(Duration.ofSeconds(1)))
                .hasSameHashCodeAs(RetryPolicy.fixed(Duration.ofSeconds(1)));
        assertThat(RetryPolicy.DEFAULT.toString()).contains("queue's");
    }
}
