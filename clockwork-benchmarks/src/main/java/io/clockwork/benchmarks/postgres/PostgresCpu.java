package io.clockwork.benchmarks.postgres;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The CPU time a PostgreSQL server has used, read from {@code /proc}: the postmaster's own user and system time, the
 * time of its children that have exited ({@code cutime} and {@code cstime}: backends that closed their connection),
 * and the time of its children that still run (every backend, the checkpointer, the WAL writer, autovacuum). Read it
 * before and after a phase. Thread-safe (immutable).
 */
final class PostgresCpu {

    private static final int USER_HZ = 100; // the clock tick of /proc/<pid>/stat on Linux
    private final long postmaster;

    private PostgresCpu(long postmaster) {
        this.postmaster = postmaster;
    }

    /**
     * @param backend the process id of one of the server's backends ({@code SELECT pg_backend_pid()})
     * @return the server's CPU meter, or empty without {@code /proc}
     */
    static Optional<PostgresCpu> ofBackend(long backend) {
        long[] f = stat(backend);
        return f == null ? Optional.empty() : Optional.of(new PostgresCpu(f[0]));
    }

    /** @return CPU milliseconds of the server so far (10 ms steps) */
    long millis() {
        long[] own = stat(postmaster);
        if (own == null) {
            throw new IllegalStateException("postmaster " + postmaster + " is gone");
        }
        long ticks = own[1] + own[2];
        for (ProcessHandle child : ProcessHandle.of(postmaster).map(p -> p.children().toList()).orElse(List.of())) {
            long[] c = stat(child.pid());
            if (c != null) {
                ticks += c[1];
            }
        }
        return ticks * 1000 / USER_HZ;
    }

    /**
     * @return {ppid, utime + stime, cutime + cstime} of a process, or null if it is gone or /proc is unreadable
     */
    private static long[] stat(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // after "pid (comm) ": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
            // cutime cstime ...
            return new long[] {Long.parseLong(f[1]), Long.parseLong(f[11]) + Long.parseLong(f[12]),
                Long.parseLong(f[13]) + Long.parseLong(f[14])};
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
