package io.clockwork.testing.schedule;

import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.Delivery;
import io.clockwork.schedule.Misfire;
import io.clockwork.schedule.Occurrence;
import io.clockwork.schedule.Schedule;
import io.clockwork.schedule.ScheduleInfo;
import io.clockwork.schedule.ScheduleRule;
import io.clockwork.schedule.Schedules;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The behaviour every {@link Schedules} backend must show, written once and run against each: a backend's test
 * supplies schedulers over one shared queue and a way to let the backend's clock move.
 *
 * <p>Shipped in clockwork-core's test-jar so that clockwork-redis runs the same tests against a real Redis. Passes run
 * through {@link Schedules#fireDue()} called by the test, so that what fires is decided by how much time passed, not
 * by a background thread's timing. Assertions that depend on how much real time passed (a real-time backend) are
 * bounds; the order, gaps and uniqueness of fire times are exact.
 */
public abstract class SchedulesContract {

    /**
     * @return a scheduler over the test's queue and schedule store; every call in one test returns another scheduler
     *         (another client on Redis) over the same state, closed by the subclass after the test
     */
    protected abstract Schedules<String> newSchedules(Duration misfireThreshold);

    /** @return the test's queue (fresh for each test) */
    protected abstract DelayedQueue<String> queue();

    /** Lets the backend's clock move by at least {@code d}. */
    protected abstract void passTime(Duration d);

    /** @return the rate of the tests' fixed-rate schedules: small on a real clock, any size on a manual one */
    protected abstract Duration period();

    /**
     * @return the misfire threshold of the tests that expect every fire time on time: 10 periods, more than any test
     *         step passes; a backend on a real clock may need more, as a pass that starts later than the threshold
     *         (a loaded machine's stall) rightly skips fire times
     */
    protected Duration onTimeThreshold() {
        return period().multipliedBy(10);
    }

    /** @return a scheduler whose misfire threshold ({@link #onTimeThreshold()}) no test step reaches */
    private Schedules<String> newSchedules() {
        return newSchedules(onTimeThreshold());
    }

    /**
     * Takes and acks every ready message; returns their occurrences by fire time, oldest first. An empty poll is
     * tried once more after 30 ms: a partitioned Redis client skips, for up to 20 ms, a partition that it found empty
     * a moment ago and where another client (the scheduler) stored the occurrence.
     */
    protected List<Occurrence> drain() {
        List<Occurrence> out = new ArrayList<>();
        try {
            boolean retried = false;
            while (true) {
                List<Delivery<String>> batch = queue().poll(DelayedQueue.MAX_BATCH, Duration.ZERO);
                if (batch.isEmpty() && !retried) {
                    retried = true;
                    passTime(Duration.ofMillis(30));
                    continue;
                }
                if (batch.isEmpty()) {
                    break;
                }
                for (Delivery<String> d : batch) {
                    out.add(Occurrence.of(d.id()).orElseThrow());
                    d.ack();
                }
            }
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        out.sort((a, b) -> a.fireTime().compareTo(b.fireTime()));
        return out;
    }

    private List<Long> times(List<Occurrence> occurrences, String name) {
        List<Long> t = new ArrayList<>();
        for (Occurrence o : occurrences) {
            if (o.schedule().equals(name)) {
                t.add(o.fireTime().toEpochMilli());
            }
        }
        return t;
    }

    private void assertConsecutive(List<Long> times, long step) {
        for (int i = 1; i < times.size(); i++) {
            assertThat(times.get(i) - times.get(i - 1)).as("gap after fire time %s in %s", i - 1, times)
                    .isEqualTo(step);
        }
    }

    private Schedule<String> rate(String name) {
        return Schedule.of(name, ScheduleRule.fixedRate(period()), "tick " + name);
    }

    @Test
    void fixedRateFiresEachFireTimeOnceInOrderWithItsMessage() throws InterruptedException {
        Schedules<String> s = newSchedules();
        ScheduleInfo info = s.put(rate("every").header("tenant", "acme"));
        long first = info.nextFire().orElseThrow().toEpochMilli();
        long p = period().toMillis();
        assertThat(first % p).isZero();
        passTime(period().multipliedBy(5));
        int fired = s.fireDue();
        assertThat(fired).isBetween(4, 10);
        Delivery<String> d = queue().poll(Duration.ZERO);
        assertThat(d.value()).isEqualTo("tick every");
        assertThat(d.headers()).isEqualTo(Map.of("tenant", "acme"));
        assertThat(Occurrence.of(d.id()).orElseThrow().fireTime()).isEqualTo(Instant.ofEpochMilli(first));
        d.ack();
        passTime(period().multipliedBy(2));
        fired += s.fireDue();
        List<Long> times = new ArrayList<>(List.of(first));
        times.addAll(times(drain(), "every"));
        assertThat(times).hasSize(fired).doesNotHaveDuplicates();
        assertThat(times.get(0)).isEqualTo(first);
        assertConsecutive(times, p);
        assertThat(s.get("every").orElseThrow().lastFire()).contains(Instant.ofEpochMilli(times.get(times.size() - 1)));
        assertThat(s.get("every").orElseThrow().nextFire())
                .contains(Instant.ofEpochMilli(times.get(times.size() - 1) + p));
    }

    @Test
    void schedulersPassingTogetherProduceEachFireTimeOnce() throws Exception {
        List<Schedules<String>> schedulers = List.of(newSchedules(), newSchedules(), newSchedules());
        schedulers.get(0).put(rate("shared"));
        long first = schedulers.get(1).get("shared").orElseThrow().nextFire().orElseThrow().toEpochMilli();
        int total = 0;
        for (int round = 0; round < 4; round++) {
            passTime(period().multipliedBy(2));
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            int[] counts = new int[schedulers.size()];
            for (int i = 0; i < schedulers.size(); i++) {
                int k = i;
                Thread t = new Thread(() -> {
                    try {
                        go.await();
                        counts[k] = schedulers.get(k).fireDue();
                    } catch (Throwable e) {
                        failure.set(e);
                    }
                });
                t.start();
                threads.add(t);
            }
            go.countDown();
            for (Thread t : threads) {
                t.join();
            }
            assertThat(failure.get()).isNull();
            for (int c : counts) {
                total += c;
            }
        }
        List<Long> times = times(drain(), "shared");
        assertThat(times).hasSize(total).doesNotHaveDuplicates().hasSizeGreaterThanOrEqualTo(6);
        assertThat(times.get(0)).isEqualTo(first);
        assertConsecutive(times, period().toMillis());
    }

    @Test
    void aLateSchedulerNeverFiresAnOccurrenceThatWasAlreadyAcked() {
        Schedules<String> early = newSchedules();
        Schedules<String> late = newSchedules();
        early.put(rate("acked"));
        passTime(period().multipliedBy(3));
        int fired = early.fireDue();
        assertThat(fired).isPositive();
        List<Long> acked = times(drain(), "acked"); // acked: the ids are no longer in the queue
        assertThat(acked).hasSize(fired);
        int more = late.fireDue(); // on a real clock the next fire time may have come meanwhile
        List<Long> later = times(drain(), "acked");
        assertThat(later).hasSize(more).allMatch(t -> t > acked.get(acked.size() - 1));
    }

    @Test
    void puttingAnEqualScheduleChangesNothing() {
        Schedules<String> s = newSchedules();
        ScheduleInfo first = s.put(rate("same"));
        passTime(period().multipliedBy(2));
        ScheduleInfo again = s.put(rate("same"));
        assertThat(again).isEqualTo(first);
        int fired = s.fireDue();
        List<Long> times = times(drain(), "same");
        assertThat(times).hasSize(fired).doesNotHaveDuplicates();
        assertThat(times.get(0)).isEqualTo(first.nextFire().orElseThrow().toEpochMilli());
        assertConsecutive(times, period().toMillis());
    }

    @Test
    void changingTheMessageKeepsTheNextFireTime() throws InterruptedException {
        Schedules<String> s = newSchedules();
        ScheduleInfo first = s.put(rate("msg"));
        ScheduleInfo changed = s.put(Schedule.of("msg", ScheduleRule.fixedRate(period()), "new value"));
        assertThat(changed.nextFire()).isEqualTo(first.nextFire());
        passTime(period().multipliedBy(2));
        assertThat(s.fireDue()).isPositive();
        assertThat(queue().poll(Duration.ZERO).value()).isEqualTo("new value");
    }

    @Test
    void changingTheRuleNeitherDoublesNorDropsAnOccurrenceAtTheSwitch() {
        Schedules<String> s = newSchedules();
        Schedules<String> other = newSchedules();
        long p = period().toMillis();
        long first = s.put(rate("switch")).nextFire().orElseThrow().toEpochMilli();
        passTime(period().multipliedBy(3));
        int before = s.fireDue();
        passTime(period().multipliedBy(2)); // due under the old rule, not yet fired when the rule changes
        ScheduleInfo switched = s.put(Schedule.of("switch", ScheduleRule.fixedRate(period().multipliedBy(2)),
                "tick switch"));
        List<Long> oldTimes = times(drain(), "switch");
        assertThat(oldTimes.size()).isGreaterThan(before);
        assertThat(oldTimes.get(0)).isEqualTo(first);
        assertConsecutive(oldTimes, p);
        long last = oldTimes.get(oldTimes.size() - 1);
        assertThat(switched.lastFire()).contains(Instant.ofEpochMilli(last));
        long next = switched.nextFire().orElseThrow().toEpochMilli();
        assertThat(next).isGreaterThan(last);
        assertThat(next % (2 * p)).isZero();
        passTime(period().multipliedBy(6));
        int after = other.fireDue() + s.fireDue();
        List<Long> newTimes = times(drain(), "switch");
        assertThat(newTimes).hasSize(after).hasSizeGreaterThanOrEqualTo(2);
        assertThat(newTimes.get(0)).isEqualTo(next);
        assertConsecutive(newTimes, 2 * p);
    }

    @Test
    void aPausedScheduleFiresNothingAndResumesAfterNow() {
        Schedules<String> s = newSchedules();
        s.put(rate("paused"));
        assertThat(s.pause("paused")).isTrue();
        assertThat(s.pause("paused")).isFalse();
        assertThat(s.get("paused").orElseThrow().paused()).isTrue();
        assertThat(s.get("paused").orElseThrow().nextFire()).isEmpty();
        passTime(period().multipliedBy(4));
        assertThat(s.fireDue()).isZero();
        assertThat(drain()).isEmpty();
        assertThat(s.resume("paused")).isTrue();
        assertThat(s.resume("paused")).isFalse();
        ScheduleInfo info = s.get("paused").orElseThrow();
        assertThat(info.paused()).isFalse();
        long next = info.nextFire().orElseThrow().toEpochMilli();
        passTime(period().multipliedBy(3));
        int fired = s.fireDue();
        List<Long> times = times(drain(), "paused");
        assertThat(times).hasSize(fired).isNotEmpty();
        assertThat(times.get(0)).isEqualTo(next);
        assertConsecutive(times, period().toMillis());
    }

    @Test
    void aDeletedScheduleIsGoneAndFiresNothing() {
        Schedules<String> s = newSchedules();
        s.put(rate("gone"));
        s.put(rate("kept"));
        assertThat(s.delete("gone")).isTrue();
        assertThat(s.delete("gone")).isFalse();
        assertThat(s.get("gone")).isEmpty();
        assertThat(s.pause("gone")).isFalse();
        assertThat(s.list()).extracting(ScheduleInfo::name).containsExactly("kept");
        passTime(period().multipliedBy(3));
        s.fireDue();
        assertThat(drain()).extracting(Occurrence::schedule).containsOnly("kept");
    }

    @Test
    void listShowsEverySchedulesRuleAndNextFireTimeInNameOrder() {
        Schedules<String> s = newSchedules();
        s.put(rate("b"));
        s.put(Schedule.of("a", ScheduleRule.fixedRate(period().multipliedBy(2)), "x").misfire(Misfire.SKIP));
        s.pause("b");
        List<ScheduleInfo> all = newSchedules().list();
        assertThat(all).extracting(ScheduleInfo::name).containsExactly("a", "b");
        assertThat(all.get(0).rule()).isEqualTo(ScheduleRule.fixedRate(period().multipliedBy(2)).spec());
        assertThat(all.get(0).misfire()).isEqualTo("skip");
        assertThat(all.get(0).nextFire()).isPresent();
        assertThat(all.get(0).lastFire()).isEmpty();
        assertThat(all.get(1).paused()).isTrue();
    }

    @Test
    void fixedDelayFiresAgainOnlyAfterThePreviousOccurrenceFinished() throws InterruptedException {
        Schedules<String> s = newSchedules();
        Duration delay = period().multipliedBy(2);
        s.put(Schedule.of("after", ScheduleRule.fixedDelay(delay), "work"));
        passTime(delay.plus(period()));
        assertThat(s.fireDue()).isEqualTo(1);
        Delivery<String> d = queue().poll(Duration.ZERO);
        assertThat(d).isNotNull();
        passTime(delay.multipliedBy(3));
        assertThat(s.fireDue()).as("the occurrence is in flight").isZero();
        assertThat(s.get("after").orElseThrow().nextFire()).isEmpty();
        assertThat(d.ack()).isTrue();
        passTime(period());
        assertThat(s.fireDue()).as("sees it finished: the next is due a delay from now").isZero();
        passTime(delay.plus(period()));
        assertThat(s.fireDue()).isEqualTo(1);
        Delivery<String> second = queue().poll(Duration.ZERO);
        assertThat(second).isNotNull();
        assertThat(Occurrence.of(second.id()).orElseThrow().fireTime())
                .isAfter(Occurrence.of(d.id()).orElseThrow().fireTime().plus(delay.multipliedBy(3)));
        second.ack();
    }

    /** Puts a schedule, lets 20 periods pass with no pass, then runs one pass: what it fires, oldest first. */
    private List<Long> afterDowntime(String name, Misfire misfire, long[] firstOut) {
        Schedules<String> s = newSchedules(period().multipliedBy(3));
        long first = s.put(rate(name).misfire(misfire)).nextFire().orElseThrow().toEpochMilli();
        firstOut[0] = first;
        passTime(period().multipliedBy(20));
        int fired = s.fireDue();
        List<Long> times = times(drain(), name);
        assertThat(times).hasSize(fired);
        long next = s.get(name).orElseThrow().nextFire().orElseThrow().toEpochMilli();
        assertThat(next).isGreaterThan(first + 19 * period().toMillis());
        return times;
    }

    @Test
    void afterADowntimeFireOnceFiresTheOldestMissedFireTimeThenTheOnTimeOnes() {
        long[] first = new long[1];
        List<Long> times = afterDowntime("once", Misfire.FIRE_ONCE, first);
        long p = period().toMillis();
        assertThat(times.get(0)).isEqualTo(first[0]);
        assertThat(times.get(1) - times.get(0)).isGreaterThan(10 * p);
        assertThat(times.size()).isBetween(2, 5); // the oldest, then the fire times within the threshold (3 periods)
        assertConsecutive(times.subList(1, times.size()), p);
    }

    @Test
    void afterADowntimeSkipFiresOnlyTheOnTimeFireTimes() {
        long[] first = new long[1];
        List<Long> times = afterDowntime("skip", Misfire.SKIP, first);
        assertThat(times.size()).isBetween(1, 4);
        assertThat(times.get(0) - first[0]).isGreaterThan(10 * period().toMillis());
        assertConsecutive(times, period().toMillis());
    }

    @Test
    void afterADowntimeCatchUpFiresMissedFireTimesUpToItsBound() {
        long[] first = new long[1];
        List<Long> times = afterDowntime("catch", Misfire.catchUp(3), first);
        long p = period().toMillis();
        assertThat(times.subList(0, 3)).containsExactly(first[0], first[0] + p, first[0] + 2 * p);
        assertThat(times.get(3) - times.get(2)).isGreaterThan(10 * p);
        assertThat(times.size()).isBetween(4, 7);
    }

    @Test
    void badNamesAreRejectedNamingTheArgumentAndNothingIsStored() {
        Schedules<String> s = newSchedules();
        String tooLong = "n".repeat(Schedule.MAX_NAME_BYTES + 1);
        assertThatThrownBy(() -> s.put(Schedule.of(tooLong, ScheduleRule.fixedRate(period()), "x")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("name")
                .hasMessageContaining(String.valueOf(Schedule.MAX_NAME_BYTES));
        assertThatThrownBy(() -> s.pause(tooLong)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name");
        assertThat(s.list()).isEmpty();
        Set<String> names = new HashSet<>();
        s.list().forEach(i -> names.add(i.name()));
        assertThat(names).isEmpty();
    }
}
