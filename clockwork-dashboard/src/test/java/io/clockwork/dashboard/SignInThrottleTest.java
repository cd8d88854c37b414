package io.clockwork.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.clockwork.time.ManualTicker;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The sign-in throttle on a manual clock: delays, lockouts, resets, per client and overall. */
class SignInThrottleTest {

    private final ManualTicker ticker = new ManualTicker();
    private final SignInThrottle throttle = new SignInThrottle(ticker);

    @Test
    void aClientsFailuresAreFreeThenDelayedThenLockedOut() {
        for (int i = 1; i <= 3; i++) {
            SignInThrottle.Verdict v = throttle.admit("10.0.0.1");
            assertThat(v.admitted()).isTrue();
            assertThat(v.failures()).isEqualTo(i);
            assertThat(v.delay()).isZero();
        }
        long[] waits = {1, 2, 4, 8, 16, 30};
        for (int i = 0; i < waits.length; i++) {
            SignInThrottle.Verdict v = throttle.admit("10.0.0.1");
            assertThat(v.admitted()).as("failure %d", 4 + i).isTrue();
            assertThat(v.delay()).isEqualTo(Duration.ofSeconds(waits[i]));
            assertThat(v.lockedOut()).isFalse();
            ticker.advance(Duration.ofSeconds(waits[i]).minusMillis(1));
            SignInThrottle.Verdict early = throttle.admit("10.0.0.1");
            assertThat(early.admitted()).as("an attempt 1 ms early").isFalse();
            assertThat(early.delay()).isEqualTo(Duration.ofMillis(1));
            assertThat(early.retryAfterSeconds()).isEqualTo(1);
            assertThat(early.overall()).isFalse();
            ticker.advance(Duration.ofMillis(1));
        }
        SignInThrottle.Verdict tenth = throttle.admit("10.0.0.1");
        assertThat(tenth.admitted()).isTrue();
        assertThat(tenth.failures()).isEqualTo(10);
        assertThat(tenth.lockedOut()).isTrue();
        assertThat(tenth.delay()).isEqualTo(Duration.ofMinutes(15));
        assertThat(tenth.describeWait()).isEqualTo("locked out for 15 m 0 s (this address)");

        ticker.advance(Duration.ofMinutes(14));
        SignInThrottle.Verdict locked = throttle.admit("10.0.0.1");
        assertThat(locked.admitted()).isFalse();
        assertThat(locked.lockedOut()).isTrue();
        assertThat(locked.retryAfterSeconds()).isEqualTo(60);
        assertThat(throttle.admit("10.0.0.2").admitted()).as("another address").isTrue();

        ticker.advance(Duration.ofMinutes(1));
        SignInThrottle.Verdict after = throttle.admit("10.0.0.1");
        assertThat(after.admitted()).as("the lockout is over and forgotten").isTrue();
        assertThat(after.failures()).isEqualTo(1);
        assertThat(after.delay()).isZero();
    }

    @Test
    void aSuccessfulSignInClearsTheClientsFailures() {
        for (int i = 0; i < 5; i++) {
            throttle.admit("10.0.0.1");
            ticker.advance(Duration.ofSeconds(2));
        }
        SignInThrottle.Verdict v = throttle.admit("10.0.0.1");
        assertThat(v.admitted()).isTrue();
        assertThat(v.failures()).isEqualTo(6);
        throttle.succeeded("10.0.0.1");

        SignInThrottle.Verdict next = throttle.admit("10.0.0.1");
        assertThat(next.admitted()).isTrue();
        assertThat(next.failures()).isEqualTo(1);
        assertThat(next.delay()).isZero();
        assertThat(throttle.admit("10.0.0.1").admitted()).isTrue();
    }

    @Test
    void attemptsSentAtOnceAreCountedAsTheyAreAdmitted() {
        int admitted = 0;
        for (int i = 0; i < 10; i++) {
            if (throttle.admit("10.0.0.1").admitted()) {
                admitted++;
            }
        }
        assertThat(admitted).as("three free failures and the one that starts the delay").isEqualTo(4);
    }

    @Test
    void failuresFromManyAddressesLockEveryoneOut() {
        SignInThrottle.Policy overall = new SignInThrottle.Policy(4, Duration.ofSeconds(1), Duration.ofSeconds(5), 6,
                Duration.ofMinutes(10));
        SignInThrottle t = new SignInThrottle(ticker, SignInThrottle.PER_CLIENT, overall);
        for (int i = 1; i <= 4; i++) {
            assertThat(t.admit("10.0.1." + i).delay()).isZero();
        }
        SignInThrottle.Verdict fifth = t.admit("10.0.1.5");
        assertThat(fifth.delay()).isEqualTo(Duration.ofSeconds(1));
        assertThat(fifth.overall()).isTrue();
        SignInThrottle.Verdict fresh = t.admit("10.0.1.6");
        assertThat(fresh.admitted()).as("a new address waits too").isFalse();
        assertThat(fresh.overall()).isTrue();
        assertThat(fresh.failures()).isZero();
        ticker.advance(Duration.ofSeconds(1));
        SignInThrottle.Verdict sixth = t.admit("10.0.1.6");
        assertThat(sixth.lockedOut()).isTrue();
        assertThat(sixth.overall()).isTrue();
        assertThat(sixth.describeWait()).isEqualTo("locked out for 10 m 0 s (all clients)");
        ticker.advance(Duration.ofMinutes(9));
        assertThat(t.admit("10.0.1.1").admitted()).isFalse();
        ticker.advance(Duration.ofMinutes(1));
        assertThat(t.admit("10.0.1.1").admitted()).isTrue();
    }

    @Test
    void aSuccessTakesItsAttemptBackFromTheOverallCount() {
        SignInThrottle.Policy overall = new SignInThrottle.Policy(2, Duration.ofSeconds(1), Duration.ofSeconds(5), 6,
                Duration.ofMinutes(10));
        SignInThrottle t = new SignInThrottle(ticker, SignInThrottle.PER_CLIENT, overall);
        for (int i = 0; i < 10; i++) {
            assertThat(t.admit("10.0.0.9").delay()).isZero();
            t.succeeded("10.0.0.9");
        }
    }

    @Test
    void tracksABoundedNumberOfAddresses() {
        SignInThrottle.Policy loose = new SignInThrottle.Policy(1_000_000, Duration.ofSeconds(1),
                Duration.ofSeconds(1), 1_000_001, Duration.ofMinutes(15));
        SignInThrottle t = new SignInThrottle(ticker, SignInThrottle.PER_CLIENT, loose);
        for (int i = 0; i < SignInThrottle.MAX_CLIENTS + 50; i++) {
            assertThat(t.admit("client-" + i).admitted()).isTrue();
        }
        assertThat(t.trackedClients()).isEqualTo(SignInThrottle.MAX_CLIENTS);
        ticker.advance(Duration.ofMinutes(15));
        t.admit("late");
        assertThat(t.trackedClients()).as("the forgotten ones are dropped").isEqualTo(1);
    }

    @Test
    void aPolicyRefusesInconsistentLimits() {
        assertThatThrownBy(() -> new SignInThrottle.Policy(5, Duration.ofSeconds(1), Duration.ofSeconds(2), 5,
                Duration.ofMinutes(1))).hasMessageContaining("below lockoutFailures");
        assertThatThrownBy(() -> new SignInThrottle.Policy(1, Duration.ofSeconds(3), Duration.ofSeconds(2), 5,
                Duration.ofMinutes(1))).hasMessageContaining("firstDelay <= maxDelay");
    }
}
