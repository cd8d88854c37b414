package io.clockwork.benchmarks.postgres;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What the harness counts of the rivals' handlers, and the payload that carries a job's id to them. */
class HandledJobsTest {

    @Test
    void aPayloadIsOneHundredBytesAndCarriesItsId() {
        for (int id : new int[] {0, 7, 123_456, 100_999_999}) {
            assertThat(JobRival.payload(id)).hasSize(JobRival.PAYLOAD_BYTES);
            assertThat(JobRival.id(JobRival.payload(id))).isEqualTo(id);
        }
    }

    @Test
    void repeatsAreCountedApartAndTheFirstRunIsKept() throws Exception {
        HandledJobs jobs = new HandledJobs();
        jobs.expect(2);
        jobs.handled(0);
        long first = jobs.firstRun(0);
        jobs.handled(0);
        jobs.handled(1);

        jobs.awaitAll(Duration.ofSeconds(1));
        assertThat(jobs.count()).isEqualTo(2);
        assertThat(jobs.repeats()).isEqualTo(1);
        assertThat(jobs.firstRun(0)).isEqualTo(first);
    }

    @Test
    void aJobOutsideThePhaseFailsTheWait() {
        HandledJobs jobs = new HandledJobs();
        jobs.expect(1);
        jobs.handled(0);
        jobs.handled(5);

        assertThatThrownBy(() -> jobs.awaitAll(Duration.ofSeconds(1)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("outside");
    }

    @Test
    void jobsThatNeverRunFailTheWaitAfterItsLimit() {
        HandledJobs jobs = new HandledJobs();
        jobs.expect(3);
        jobs.handled(1);

        assertThatThrownBy(() -> jobs.awaitAll(Duration.ofMillis(50)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("only 1 of 3");
    }
}
