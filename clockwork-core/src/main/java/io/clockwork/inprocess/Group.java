package io.clockwork.inprocess;

import java.util.ArrayList;
import java.util.List;

/**
 * One group of the in-process queue's messages (a group key, or the unnamed group of messages without one): its
 * weight in the round robin, its limits' state and its lanes of ready messages. Not thread-safe: guarded by the
 * queue's lock. Lives while a live message names it, or while its rate limit still remembers a delivery.
 */
final class Group {

    /** The key; null for the unnamed group. */
    final String key;
    /** Deliveries in a row per turn of the round robin. */
    final int weight;
    /** Its lanes that hold ready messages, one per priority, for {@link FairReady#block} and unblock. */
    final List<FairReady.Lane> lanes = new ArrayList<>(1);
    /** Its deliveries under the group rate limit; null without one. */
    final SlidingLog log;
    /** Live messages (delayed, ready or in flight) in this group; not counted for the unnamed group. */
    int members;
    /** Its messages in flight. */
    int inFlight;
    /** Whether it is at its in-flight limit. */
    boolean fullInFlight;
    /** Whether it waits for a permit of its rate limit, until {@link #permitAt}. */
    boolean waitsForPermit;
    /** While {@link #waitsForPermit}: the ticker reading at which its next permit frees. */
    long permitAt;
    /** Whether it is in the queue of groups to forget once their rate limit forgets them. */
    boolean idle;

    Group(String key, int weight, SlidingLog log) {
        this.key = key;
        this.weight = weight;
        this.log = log;
    }

    /** @return whether its ready messages are out of the round robin for now */
    boolean blocked() {
        return fullInFlight || waitsForPermit;
    }

    @Override
    public String toString() {
        return "Group[" + (key == null ? "(unnamed)" : key) + "]";
    }
}
