package io.clockwork.engine;

/** A wheel entry for tests: an id and the wheel-time deadline it was given. */
final class TestEntry extends WheelEntry {
    final int id;

    TestEntry(int id, long deadline) {
        this.id = id;
        deadline(deadline);
    }

    @Override
    public String toString() {
        return "#" + id + "@" + deadline();
    }
}
