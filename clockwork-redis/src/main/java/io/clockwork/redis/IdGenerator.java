package io.clockwork.redis;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Generates the ids of messages offered without the caller's id. Thread-safe.
 *
 * <p>An id is a random 128-bit prefix, drawn once per generator (one per queue instance) from {@link SecureRandom},
 * then a per-generator counter: {@code <22 base64url chars>-<counter in base 36>}. Ids of distinct clients differ
 * by their prefixes (a collision among a billion clients has a chance of about 2^-68), ids of one client by their
 * counters. {@link java.util.UUID#randomUUID()} draws 16 bytes from a shared {@link SecureRandom} per id, under a
 * lock; at a hundred thousand offers a second that costs a noticeable share of a core.
 *
 * <p>Such an id is the message's <em>client part</em>. A message filed in the compact store (due at least
 * {@code compactAfter} ahead) is <em>placed</em>: the offer's reply names its chunk and position, and the id handed
 * out is {@code <client part>.<chunk name>.<position hex>} ({@link #placed}), so that a cancel or lookup reads that
 * one entry instead of an index (see {@code include/cold.lua}). A placed id belongs to the partition of its client
 * part ({@link #clientPartLength}), the one it was offered to.
 */
final class IdGenerator {

    /** Length of the random prefix and its '-' in a client part. */
    private static final int PREFIX_LENGTH = 23;
    /** Longest client part: the prefix and a positive long in base 36 (13 digits). */
    private static final int MAX_CLIENT_PART = PREFIX_LENGTH + 13;

    private final String prefix;
    /** FNV-1a of the prefix's bytes, from which a candidate id's hash is finished over its counter digits. */
    private final int prefixHash;
    private final AtomicLong counter = new AtomicLong();

    IdGenerator() {
        byte[] random = new byte[16];
        new SecureRandom().nextBytes(random);
        this.prefix = Base64.getUrlEncoder().withoutPadding().encodeToString(random) + "-";
        int h = PartitionSelector.FNV_OFFSET;
        for (int i = 0; i < prefix.length(); i++) {
            h = PartitionSelector.mix(h, prefix.charAt(i)); // base64url and '-': one byte each in UTF-8
        }
        this.prefixHash = h;
    }

    /**
     * @param clientPart a generated id, as offered
     * @param place      its place in the compact store, {@code <chunk name>.<position hex>}, from offer.lua's reply
     * @return the placed message's id
     */
    static String placed(String clientPart, String place) {
        return clientPart + "." + place;
    }

    /**
     * The length of a placed id's client part: 22 base64url characters, '-' and a base-36 counter, followed by
     * {@code .<hex>.<hex>.<hex>} (the shape {@code include/cold.lua} recognises too).
     *
     * @param id any id
     * @return the length of its client part if it is a placed id, else -1
     */
    static int clientPartLength(String id) {
        int dot = id.indexOf('.');
        if (dot <= PREFIX_LENGTH || dot > MAX_CLIENT_PART || id.charAt(PREFIX_LENGTH - 1) != '-') {
            return -1;
        }
        for (int i = 0; i < PREFIX_LENGTH - 1; i++) {
            char c = id.charAt(i);
            if (!(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_')) {
                return -1;
            }
        }
        for (int i = PREFIX_LENGTH; i < dot; i++) {
            char c = id.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'z')) {
                return -1;
            }
        }
        int groups = 0;
        int digits = 0;
        for (int i = dot + 1; i <= id.length(); i++) {
            char c = i == id.length() ? '.' : id.charAt(i);
            if (c == '.') {
                if (digits == 0) {
                    return -1;
                }
                groups++;
                digits = 0;
            } else if (c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
                digits++;
            } else {
                return -1;
            }
        }
        return groups == 3 ? dot : -1;
    }

    /**
     * Describes the counters of generated ids for offer.lua's placed stream (its ARGV[3] after {@code '*'}): the first
     * id's counter, then each later one's rise over the one before as a base-36 digit.
     *
     * @param ids     ids, all from one generator, each at most 33 characters (counters of at most 10 digits, which a
     *                Lua number holds exactly)
     * @param members the indexes of the ids to describe, in the order they are sent
     * @return {@code "<first counter>,<rises>"}, or null if the ids do not fit (a rise outside 1-35, another prefix,
     *         a longer counter)
     */
    static String counterRuns(String[] ids, int[] members) {
        String first = ids[members[0]];
        StringBuilder b = null;
        long last = 0;
        for (int i : members) {
            String id = ids[i];
            if (id.length() <= PREFIX_LENGTH || id.length() > PREFIX_LENGTH + 10
                    || !id.regionMatches(0, first, 0, PREFIX_LENGTH)) {
                return null;
            }
            long value;
            try {
                value = Long.parseLong(id, PREFIX_LENGTH, id.length(), 36);
            } catch (NumberFormatException e) {
                return null;
            }
            if (b == null) {
                b = new StringBuilder(16 + members.length).append(id, PREFIX_LENGTH, id.length()).append(',');
            } else {
                long rise = value - last;
                if (rise < 1 || rise > 35) {
                    return null;
                }
                b.append(Character.forDigit((int) rise, 36));
            }
            last = value;
        }
        return b.toString();
    }

    /** @return a new id, at most 36 characters */
    String next() {
        return prefix + Long.toString(counter.incrementAndGet(), 36);
    }

    /**
     * A new id that hashes to the given partition ({@link PartitionSelector#partitionOf}), so that a batch of
     * generated ids lands in one partition: counter values are drawn until one fits (on average as many as there
     * are partitions), each tried by finishing the prefix's hash over its digits, without building a string.
     *
     * @param partition the partition, in [0, selector.count())
     * @param selector  the queue's id-to-partition map
     * @return a new id, at most 36 characters, with {@code selector.partitionOf(id) == partition}
     */
    String nextIn(int partition, PartitionSelector selector) {
        if (selector.count() == 1) {
            return next();
        }
        char[] digits = new char[13]; // a positive long in base 36 has at most 13 digits
        while (true) {
            long c = counter.incrementAndGet();
            int at = digits.length;
            do {
                digits[--at] = Character.forDigit((int) (c % 36), 36);
                c /= 36;
            } while (c > 0);
            int h = prefixHash;
            for (int i = at; i < digits.length; i++) {
                h = PartitionSelector.mix(h, digits[i]);
            }
            if (selector.partitionOfHash(h) == partition) {
                return prefix + new String(digits, at, digits.length - at);
            }
        }
    }
}
