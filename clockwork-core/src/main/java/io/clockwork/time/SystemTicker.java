package io.clockwork.time;

/** The {@link System#nanoTime()} ticker. Thread-safe. */
enum SystemTicker implements Ticker {
    INSTANCE;

    @Override
    public long read() {
        return System.nanoTime();
    }

    @Override
    public String toString() {
        return "Ticker.system()";
    }
}
