package io.clockwork.engine;

/** A timer entry with nothing of its own, for the engine's jcstress tests. Not thread-safe beyond its state. */
final class Probe extends TimerEntry {
}
