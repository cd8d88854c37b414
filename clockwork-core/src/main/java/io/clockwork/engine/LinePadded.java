package io.clockwork.engine;

/**
 * Padding for small objects that different threads write: 60 bytes of fields laid out before a subclass's own
 * (the JVM places superclass fields first, and the {@code int} fills the hole after the 12-byte header, which a
 * subclass field would otherwise take). Between the fields of two such objects allocated one after the other lie
 * the second's header and padding, 72 bytes: more than a 64-byte cache line. Used for lock stripes and segments,
 * whose lock words and counts are written by whichever thread holds them, and for the timer's producer lanes. No
 * state; nothing reads the padding. Public only so that the expiry and timer packages can share it; the package is
 * not exported.
 */
@SuppressWarnings("unused")
public abstract class LinePadded {
    private int p0;
    private long p1;
    private long p2;
    private long p3;
    private long p4;
    private long p5;
    private long p6;
    private long p7;

    /** For subclasses. */
    protected LinePadded() {
    }
}
