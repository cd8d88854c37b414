package io.clockwork.redis;

import io.clockwork.queue.Codec;
import io.clockwork.queue.Delivery;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * The consumer {@link RedisQueueCrashIT} runs in a JVM of its own and kills with {@code SIGKILL}. It takes batches
 * of deliveries and acks them, writing {@code D <id> <attempt>} after each delivery and {@code A <id>} after each
 * ack that returned true, flushed line by line. Once the test writes a line to its stdin, it acks only the first half
 * of its next batch, writes {@code HOLDING <n>} and hangs holding the rest, until the test kills it. Not thread-safe:
 * a process of its own.
 */
public final class CrashingConsumerMain {

    private CrashingConsumerMain() {
    }

    /**
     * @param args Redis URI, queue name, visibility timeout in ms, batch size
     * @throws Exception on any failure (the test then sees the process die too early)
     */
    public static void main(String[] args) throws Exception {
        String uri = args[0];
        String name = args[1];
        Duration visibility = Duration.ofMillis(Long.parseLong(args[2]));
        int batch = Integer.parseInt(args[3]);
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        BufferedReader control = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        RedisDelayedQueue<String> queue = RedisDelayedQueue.builder(uri, name, Codec.string())
                .visibilityTimeout(visibility).build();
        out.println("READY");
        out.flush();
        while (true) {
            boolean crashNow = System.in.available() > 0 && control.readLine() != null;
            List<Delivery<String>> taken = new ArrayList<>(batch);
            while (taken.size() < batch) {
                Delivery<String> d = queue.poll(Duration.ofSeconds(1));
                if (d == null) {
                    break;
                }
                taken.add(d);
                out.println("D " + d.id() + " " + d.attempt());
            }
            out.flush();
            int toAck = crashNow ? taken.size() / 2 : taken.size();
            for (int i = 0; i < toAck; i++) {
                if (taken.get(i).ack()) {
                    out.println("A " + taken.get(i).id());
                }
            }
            out.flush();
            if (crashNow) {
                out.println("HOLDING " + (taken.size() - toAck));
                out.flush();
                while (true) {
                    LockSupport.park(); // stuck mid-batch, holding deliveries, until SIGKILL
                }
            }
        }
    }
}
