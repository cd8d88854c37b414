package io.clockwork.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The scripts' replies read into named records, each by position as the script's header says: the one place that
 * knows the reply layouts. Immutable values; stateless and thread-safe.
 */
final class ScriptReplies {

    /** A reply of {done 0/1, client must signal 0/1}: reschedule, nack, release, requeue. */
    record Flagged(boolean done, boolean mustSignal) {
        static Flagged of(List<Object> r) {
            return new Flagged((Long) r.get(0) == 1L, (Long) r.get(1) == 1L);
        }
    }

    /**
     * offer.lua's reply for one message: its code (0 kept, 1 added, 2 replaced, 3 extended, 4 in flight, 5 dead: see
     * offer.lua), whether the client must pass a wake-up on, and the place of a placed message (null if not placed).
     */
    record Stored(int code, boolean mustSignal, String place) {
        static Stored of(List<Object> r) {
            return new Stored(Math.toIntExact((Long) r.get(0)), (Long) r.get(1) == 1L, placeOf(r, 2));
        }

        /**
         * @param id the id the message was offered with
         * @return the message's id: {@code id}, with its place appended if it was placed ({@link IdGenerator#placed})
         */
        String idOf(String id) {
            return place == null ? id : IdGenerator.placed(id, place);
        }
    }

    /** @return element {@code i} of an offer reply as a place, or null if absent or empty (not placed) */
    static String placeOf(List<Object> r, int i) {
        if (r.size() <= i) {
            return null;
        }
        byte[] place = (byte[]) r.get(i);
        return place.length == 0 ? null : new String(place, StandardCharsets.US_ASCII);
    }

    /** offer.lua's code of an added message. */
    static final int ADDED = 1;

    /** A message poll.lua put in flight: its in-flight member and its META value. */
    record InFlight(byte[] member, byte[] meta) {
    }

    /**
     * poll.lua's reply.
     *
     * @param taken       the messages put in flight, in order
     * @param nextEventMs if fewer were taken than asked, the ms until the partition's next event (-1: none); else -1
     * @param mustSignal  whether the client must pass a wake-up on (more is ready, and the signal is in another slot)
     * @param lost        how many messages this call found with part of their state evicted, and dropped
     * @param limited     whether the queue's rate limit kept this call from due messages ({@code poll_rate.lua},
     *                    {@code rate.lua}); nextEventMs is then the ms until the next permit frees
     */
    record Polled(List<InFlight> taken, long nextEventMs, boolean mustSignal, long lost, boolean limited) {
        static Polled of(List<Object> r) {
            return of(r, 0);
        }

        /** Reads poll.lua's reply where it starts at index {@code from} of r (ack_poll.lua puts ack codes first). */
        static Polled of(List<Object> r, int from) {
            return read(r, from, 4, false);
        }

        /** Reads poll_rate.lua's reply: poll.lua's with the limited flag after its first four elements. */
        static Polled limited(List<Object> r) {
            return read(r, 0, 5, (Long) r.get(4) == 1L);
        }

        /** A poll the rate limit refused every permit, waiting waitMs for the next ({@code rate.lua}). */
        static Polled refused(long waitMs) {
            return new Polled(List.of(), waitMs, false, 0, true);
        }

        /** Reads a poll reply of {@code head} elements before its messages, from index {@code from}. */
        private static Polled read(List<Object> r, int from, int head, boolean limited) {
            int k = Math.toIntExact((Long) r.get(from));
            List<InFlight> taken = new ArrayList<>(k);
            for (int i = 0; i < k; i++) {
                int at = from + head + 2 * i;
                taken.add(new InFlight((byte[]) r.get(at), (byte[]) r.get(at + 1)));
            }
            return new Polled(taken, (Long) r.get(from + 1), (Long) r.get(from + 2) == 1L, (Long) r.get(from + 3),
                    limited);
        }
    }

    /** rate.lua's reply to an acquire: permits granted, the server ms they count at, ms until one frees if none. */
    record Granted(int granted, long atMs, long waitMs) {
        static Granted of(List<Object> r) {
            return new Granted(Math.toIntExact((Long) r.get(0)), (Long) r.get(1), (Long) r.get(2));
        }
    }

    /** stats.lua's reply: counts by state, the ms until the next delayed message is due (-1: none), lost. */
    record Counts(long delayed, long ready, long inFlight, long dead, long nextDueMs, long lost, long trimmed) {
        static Counts of(List<Object> r) {
            return new Counts((Long) r.get(0), (Long) r.get(1), (Long) r.get(2), (Long) r.get(3), (Long) r.get(4),
                    (Long) r.get(5), (Long) r.get(6));
        }
    }

    /**
     * One element of dead_list.lua's reply, its tail read into headers and payload; {@code payload} is null (and
     * {@code headers} empty) if its tail was evicted.
     */
    record Dead(String id, byte[] payload, Map<String, String> headers, int attempts, String reason, long diedAtMs) {
        static List<Dead> listOf(List<Object> r) {
            List<Dead> all = new ArrayList<>(r.size() / 5);
            for (int i = 0; i < r.size(); i += 5) {
                byte[] payload = null;
                Map<String, String> headers = Map.of();
                if (r.get(i + 1) instanceof byte[] tail) {
                    Tail.Parsed t = Tail.parse(tail, 0);
                    payload = Arrays.copyOfRange(tail, t.payloadStart(), tail.length);
                    headers = t.headers();
                }
                all.add(new Dead(string(r.get(i)), payload, headers, Math.toIntExact((Long) r.get(i + 2)),
                        string(r.get(i + 3)), (Long) r.get(i + 4)));
            }
            return all;
        }
    }

    /**
     * How long {@code include/revoked.lua} remembers a revoked hold ({@code REVOKED_KEEP_MS}): a {@link AckCode#GONE}
     * is trusted only while no revocation it could miss has been forgotten (see {@link RedisDelivery#ackedIfGone}).
     */
    static final Duration REVOKED_KEEP = Duration.ofMinutes(2);

    /** ack.lua's code for one delivery. */
    enum AckCode {
        /** another delivery holds the message, or this delivery's hold was revoked (expired, cancelled) */
        NOT_HELD,
        /** deleted now */
        DELETED,
        /** the message no longer exists and this delivery's hold was never revoked: only its own ack deleted it */
        GONE,
        /** {@link #GONE}, found by a retry of the same call after an attempt whose outcome is unknown */
        GONE_AFTER_RETRY;

        static AckCode of(long code) {
            return values()[Math.toIntExact(code)];
        }

        /** @return the script's code, GONE read as GONE_AFTER_RETRY when an earlier attempt may have run */
        static AckCode of(long code, boolean uncertain) {
            AckCode c = of(code);
            return c == GONE && uncertain ? GONE_AFTER_RETRY : c;
        }
    }

    /**
     * A message as poll.lua hands it over: its META value {@code D <attempts> <seq in hex><tail>}, the tail
     * {@code [!<n>!<last error>][#<h>#<headers>]:<payload>} (see include/meta.lua and {@link Tail}), read into the
     * delivery's attempt (attempts + 1: attempts counts the deliveries before this scheduling), receipt (the
     * sequence), headers (empty without a block: a message offered without headers) and
     * payload.
     */
    record Taken(int attempt, long receipt, byte[] payload, Map<String, String> headers) {
        static Taken parse(byte[] v) {
            int i = 2;
            int attempts = 0;
            for (; i < v.length && v[i] != ' '; i++) {
                attempts = Math.addExact(Math.multiplyExact(attempts, 10), digit(v, i, 10));
            }
            long seq = 0;
            for (i++; i < v.length && v[i] != ':' && v[i] != '!' && v[i] != '#'; i++) {
                seq = (seq << 4) | digit(v, i, 16);
            }
            if (v.length < 4 || v[1] != ' ' || i >= v.length) {
                throw notMeta(v);
            }
            Tail.Parsed t = Tail.parse(v, i);
            return new Taken(attempts + 1, seq, Arrays.copyOfRange(v, t.payloadStart(), v.length), t.headers());
        }

        /** @return the number written in hex in {@code v[from, to)}, e.g. a member's sequence prefix */
        static long hex(byte[] v, int from, int to) {
            long n = 0;
            for (int i = from; i < to; i++) {
                n = (n << 4) | digit(v, i, 16);
            }
            return n;
        }

        private static int digit(byte[] v, int i, int radix) {
            int d = Character.digit(v[i], radix);
            if (d < 0) {
                throw notMeta(v);
            }
            return d;
        }

        private static IllegalStateException notMeta(byte[] v) {
            return new IllegalStateException("not a META value: "
                    + new String(v, 0, Math.min(v.length, 40), StandardCharsets.UTF_8));
        }
    }

    /** An ack's outcome and what the same script call took: {@link GroupCommit#ackPoll}'s reply. */
    record AckPolled(AckCode code, Polled polled) {
    }

    private ScriptReplies() {
    }

    private static String string(Object bulk) {
        return bulk instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(bulk);
    }
}
