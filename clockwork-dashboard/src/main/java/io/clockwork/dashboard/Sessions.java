package io.clockwork.dashboard;

import io.clockwork.time.Ticker;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The dashboard's sessions, in memory: a random token in a cookie names a session, which holds its user, its CSRF
 * token and a one-shot notice for the next page. Thread-safe.
 *
 * <p>Tokens are 256 random bits; the map is keyed by their SHA-256, so a heap dump shows no usable token. A session
 * ends after {@code idle} without requests, and at most {@code maxAge} after it began, on the {@link Ticker}.
 */
final class Sessions {

    /**
     * One session. Thread-safe.
     *
     * @param user the user's name
     * @param csrf the token every action must carry
     */
    record Session(String key, String user, String csrf, long startNanos, long[] lastNanos, String[] notice) {

        /** @return the notice set for this page, cleared */
        String takeNotice() {
            synchronized (notice) {
                String n = notice[0];
                notice[0] = null;
                return n;
            }
        }

        void notice(String text) {
            synchronized (notice) {
                notice[0] = text;
            }
        }
    }

    private static final int MAX_SESSIONS = 10_000;

    private final SecureRandom random = new SecureRandom();
    private final Map<String, Session> sessions = new ConcurrentHashMap<>();
    private final Ticker ticker;
    private final long idleNanos;
    private final long maxAgeNanos;

    Sessions(Ticker ticker, Duration idle, Duration maxAge) {
        this.ticker = ticker;
        this.idleNanos = idle.toNanos();
        this.maxAgeNanos = maxAge.toNanos();
    }

    /**
     * Starts a session.
     *
     * @param user its user
     * @return {the token for the cookie, the session}
     */
    Map.Entry<String, Session> create(String user) {
        if (sessions.size() >= MAX_SESSIONS) {
            expire();
        }
        String token = token();
        long now = ticker.read();
        Session s = new Session(hash(token), user, token(), now, new long[] {now}, new String[1]);
        sessions.put(s.key(), s);
        return Map.entry(token, s);
    }

    /**
     * @param token a cookie's value, or null
     * @return its live session, touched; empty if none
     */
    Optional<Session> find(String token) {
        if (token == null || token.isEmpty() || token.length() > 64) {
            return Optional.empty();
        }
        Session s = sessions.get(hash(token));
        if (s == null) {
            return Optional.empty();
        }
        long now = ticker.read();
        synchronized (s.lastNanos()) {
            if (now - s.lastNanos()[0] > idleNanos || now - s.startNanos() > maxAgeNanos) {
                sessions.remove(s.key());
                return Optional.empty();
            }
            s.lastNanos()[0] = now;
        }
        return Optional.of(s);
    }

    /** Ends a session. */
    void remove(Session s) {
        sessions.remove(s.key());
    }

    /** @return how many sessions are stored */
    int size() {
        return sessions.size();
    }

    private void expire() {
        long now = ticker.read();
        sessions.values().removeIf(s -> now - s.lastNanos()[0] > idleNanos || now - s.startNanos() > maxAgeNanos);
        if (sessions.size() >= MAX_SESSIONS) {
            throw new IllegalStateException("too many dashboard sessions (" + MAX_SESSIONS + "): try again later");
        }
    }

    private String token() {
        byte[] b = new byte[32];
        random.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    private static String hash(String token) {
        try {
            return Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-256")
                    .digest(token.getBytes(StandardCharsets.US_ASCII)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /**
     * @param a one token
     * @param b another
     * @return whether they are equal, in time independent of where they differ
     */
    static boolean same(String a, String b) {
        return a != null && b != null && MessageDigest.isEqual(a.getBytes(StandardCharsets.UTF_8),
                b.getBytes(StandardCharsets.UTF_8));
    }
}
