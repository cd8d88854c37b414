package io.clockwork.postgres;

import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * A queue client's wake-ups: one daemon thread holding one connection of the {@link DataSource} that
 * {@code LISTEN}s on the queue's channel, and counts each wake-up as a new generation that waiting consumers see. A
 * notification whose payload is a positive number of milliseconds (a message due that much later: {@code QueueSql})
 * is a wake-up at that time, on this thread's clock ({@link System#nanoTime()}) from the notification's arrival, so
 * that consumers take once, when the message is due, not also at once to find it not due yet; any other notification
 * is a wake-up now. A consumer reads the generation before its take, and after an empty take waits until the
 * generation changes or its deadline passes, so a notification sent after its take is never missed. When the
 * connection fails the thread wakes every consumer (they take again), and reconnects with a growing pause.
 * Thread-safe.
 *
 * <p>Nothing runs until {@link #start()}: a queue starts its listener at its first poll that may wait, so a client
 * that only offers holds no connection. The first {@code LISTEN} advances the generation like a notification, so a
 * consumer whose take ran before it takes again instead of missing what was notified meanwhile.
 */
final class Listener implements AutoCloseable {

    /** How long one wait for notifications lasts before the thread checks whether it is closed. */
    private static final int RECEIVE_MILLIS = 200;
    private static final long MAX_BACKOFF_MILLIS = 2000;
    /** The most timed wake-ups held; a notification beyond them wakes the consumers at once. */
    private static final int MAX_TIMED = 1024;

    private final DataSource dataSource;
    private final String channel;
    private final Object lock = new Object();
    private final Thread thread;
    private long generation;
    private volatile long notifications;
    private volatile boolean started;
    private volatile boolean listening;
    private volatile boolean closed;
    /** The wake-ups to come ({@link System#nanoTime()}), earliest first; only the thread touches them. */
    private final PriorityQueue<Long> timed = new PriorityQueue<>();

    /**
     * Makes the listener; {@link #start()} starts its thread.
     *
     * @param dataSource where connections come from
     * @param channel    the queue's channel
     * @param queue      the queue's name, for the thread's
     */
    Listener(DataSource dataSource, String channel, String queue) {
        this.dataSource = dataSource;
        this.channel = channel;
        this.thread = new Thread(this::run, "clockwork-postgres-listener-" + queue);
        thread.setDaemon(true);
    }

    /**
     * Starts the thread, which takes a connection and {@code LISTEN}s, unless it started already or the listener is
     * closed; returns at once, before the {@code LISTEN} ran. Idempotent.
     *
     * @return this listener
     */
    Listener start() {
        startOnce();
        return this;
    }

    /**
     * Starts the thread as {@link #start()} does.
     *
     * @return whether this call started it
     */
    boolean startOnce() {
        if (started) {
            return false;
        }
        synchronized (lock) {
            if (started || closed) {
                return false;
            }
            started = true;
            thread.start();
            return true;
        }
    }

    /**
     * Waits until the thread listens, the listener is closed, or {@code limitNanos} passed (a database that does not
     * answer: the thread keeps trying).
     *
     * @param limitNanos how long to wait at most
     * @throws InterruptedException if interrupted
     */
    void awaitListening(long limitNanos) throws InterruptedException {
        long deadline = System.nanoTime() + limitNanos;
        synchronized (lock) {
            while (!listening && !closed) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
        }
    }

    /**
     * The channel of a queue: a hash of its schema and name, so that any name fits PostgreSQL's 63-byte limit.
     *
     * @param schema the schema
     * @param queue  the queue's name
     * @return {@code clockwork_} and 40 hex digits
     */
    static String channel(String schema, String queue) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest((schema + "\u0000" + queue).getBytes(StandardCharsets.UTF_8));
            return "clockwork_" + HexFormat.of().formatHex(digest, 0, 20);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** @return the current generation, to pass to {@link #await} */
    long generation() {
        synchronized (lock) {
            return generation;
        }
    }

    /**
     * Waits until a notification came after {@code seen} was read, the queue closed, or {@code deadlineNanos}
     * ({@link System#nanoTime()}) passed.
     *
     * @param seen          a generation read before the caller's take
     * @param deadlineNanos when to give up
     * @throws InterruptedException if interrupted
     */
    void await(long seen, long deadlineNanos) throws InterruptedException {
        synchronized (lock) {
            while (generation == seen && !closed) {
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
        }
    }

    /** @return how many notifications arrived on the channel so far */
    long notifications() {
        return notifications;
    }

    /** @return whether the connection is up and listening */
    boolean isListening() {
        return listening;
    }

    /** Wakes every waiting consumer, which takes again: after its ticker jumped, so that it reads the time again. */
    void wake() {
        signal();
    }

    private void signal() {
        synchronized (lock) {
            generation++;
            lock.notifyAll();
        }
    }

    private void run() {
        long backoff = 50;
        Connection c = null;
        while (!closed) {
            try {
                if (c == null) {
                    c = dataSource.getConnection();
                    c.setAutoCommit(true);
                    try (Statement s = c.createStatement()) {
                        s.execute("LISTEN \"" + channel + "\"");
                    }
                    listening = true;
                    backoff = 50;
                    signal(); // what was notified while not listening: consumers take again
                }
                PGNotification[] received = c.unwrap(PGConnection.class).getNotifications(receiveMillis());
                if (received != null && received.length > 0) {
                    notifications += received.length; // only this thread writes it
                }
                if (due(received, System.nanoTime())) {
                    signal();
                }
            } catch (SQLException | RuntimeException e) {
                listening = false;
                closeQuietly(c);
                c = null;
                signal();
                if (closed) {
                    break;
                }
                try {
                    Thread.sleep(backoff); // the pause before a reconnect, growing while the database is away
                } catch (InterruptedException interrupted) {
                    break;
                }
                backoff = Math.min(backoff * 2, MAX_BACKOFF_MILLIS);
            }
        }
        listening = false;
        closeQuietly(c);
    }

    /** How long the next wait for notifications lasts: until the next timed wake-up, at most RECEIVE_MILLIS. */
    private int receiveMillis() {
        Long next = timed.peek();
        if (next == null) {
            return RECEIVE_MILLIS;
        }
        long millis = (next - System.nanoTime() + 999_999) / 1_000_000; // rounded up
        return (int) Math.max(1, Math.min(RECEIVE_MILLIS, millis)); // 0 would wait without end
    }

    /**
     * Files the timed wake-ups among {@code received} and drops those whose time has come.
     *
     * @return whether consumers must take now: a notification asks so, or a timed wake-up's time has come
     */
    private boolean due(PGNotification[] received, long now) {
        boolean wake = false;
        if (received != null) {
            for (PGNotification n : received) {
                long millis = delayMillis(n.getParameter());
                if (millis <= 0 || timed.size() >= MAX_TIMED) {
                    wake = true;
                } else {
                    timed.add(now + millis * 1_000_000L);
                }
            }
        }
        while (!timed.isEmpty() && timed.peek() - now <= 0) {
            timed.poll();
            wake = true;
        }
        return wake;
    }

    /** @return the milliseconds a notification's payload asks the wake-up to wait, 0 for now (any other payload) */
    static long delayMillis(String payload) {
        if (payload == null || payload.isEmpty() || payload.length() > 9) {
            return 0;
        }
        for (int i = 0; i < payload.length(); i++) {
            if (payload.charAt(i) < '0' || payload.charAt(i) > '9') {
                return 0;
            }
        }
        return Long.parseLong(payload);
    }

    /** Gives the connection back, not listening: a pool hands it to others next, who must not collect notifications. */
    private static void closeQuietly(Connection c) {
        if (c != null) {
            try (Statement s = c.createStatement()) {
                s.execute("UNLISTEN *");
            } catch (SQLException | RuntimeException ignored) {
                // a broken connection listens to nothing
            }
            try {
                c.close();
            } catch (SQLException | RuntimeException ignored) {
                // the connection is broken already
            }
        }
    }

    /**
     * Wakes every waiting consumer and stops the thread, which closes its connection (back to the pool) when its
     * current wait for notifications ends, within {@link #RECEIVE_MILLIS}; this call does not wait for that.
     * Idempotent.
     */
    @Override
    public void close() {
        synchronized (lock) {
            closed = true; // under the lock: a start() after this starts nothing
        }
        signal();
    }
}
