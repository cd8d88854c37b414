package io.clockwork.redis;

/**
 * The pause of one queue across its partitions ({@code pause.lua}): each partition stores its own flag, so pausing,
 * resuming and reading visit every partition in turn. Thread-safe: it keeps no state of its own.
 */
final class Pauses {

    private final Partitions partitions;
    private final QueueScripts scripts;
    private final Signals signals;

    Pauses(Partitions partitions, QueueScripts scripts, Signals signals) {
        this.partitions = partitions;
        this.scripts = scripts;
        this.signals = signals;
    }

    /** @see RedisDelayedQueue#pause() */
    void pause() {
        for (int p = 0; p < partitions.count(); p++) {
            scripts.pause(p, 'p');
        }
    }

    /** @see RedisDelayedQueue#resume() */
    void resume() {
        for (int p = 0; p < partitions.count(); p++) {
            if (scripts.pause(p, 'r').mustSignal()) {
                signals.push();
            }
        }
        partitions.woken(); // this client's paused polls marked partitions empty: worth a round trip again
    }

    /** @see RedisDelayedQueue#isPaused() */
    boolean paused() {
        for (int p = 0; p < partitions.count(); p++) {
            if (scripts.pause(p, '?').done()) {
                return true;
            }
        }
        return false;
    }
}
