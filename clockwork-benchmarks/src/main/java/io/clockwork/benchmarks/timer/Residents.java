package io.clockwork.benchmarks.timer;

/**
 * Long-lived objects for {@link BusyHeapBenchmark}: a chained hash table of small entries, each with a small value
 * array, as a cache holds them (two objects and two references per entry, scattered by their keys). Immutable once
 * built; thread-safe to read.
 */
final class Residents {

    private static final Residents NONE = new Residents(new Entry[0], 0);

    private final Entry[] table;
    private final int entries;

    private Residents(Entry[] table, int entries) {
        this.table = table;
        this.entries = entries;
    }

    /**
     * Builds the table.
     *
     * @param objects how many objects to keep alive (entries and their values; rounded down to an even number)
     * @return the residents
     */
    static Residents build(int objects) {
        int entries = objects / 2;
        if (entries == 0) {
            return NONE;
        }
        Entry[] table = new Entry[Math.max(1, entries / 4)];
        long key = Workloads.SEED;
        for (int i = 0; i < entries; i++) {
            key = key * 6364136223846793005L + 1442695040888963407L;
            int slot = (int) ((key >>> 33) % table.length);
            table[slot] = new Entry(key, new long[] {key, i}, table[slot]);
        }
        return new Residents(table, entries);
    }

    /** Walks the table, so the residents are provably alive until the end of the trial. */
    void verify() {
        int seen = 0;
        for (Entry head : table) {
            for (Entry e = head; e != null; e = e.next) {
                if (e.value[0] != e.key) {
                    throw new IllegalStateException("resident " + e.key + " corrupted");
                }
                seen++;
            }
        }
        if (seen != entries) {
            throw new IllegalStateException("expected " + entries + " residents, found " + seen);
        }
    }

    private static final class Entry {
        final long key;
        final long[] value;
        final Entry next;

        Entry(long key, long[] value, Entry next) {
            this.key = key;
            this.value = value;
            this.next = next;
        }
    }
}
