package io.clockwork.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.clockwork.time.ManualTicker;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Random create/track/touch/close/remove/advance/expire sequences against a model: per session, its rounded expiry
 * and whether it is closing, expired or removed.
 */
class SessionTrackerImplProperties {

    private static final int TICK = 500;

    record Op(int kind, int session, int amount) { }

    /** The model of one session. */
    static final class Model {
        long expiry;
        boolean closing;
        boolean expired;

        Model(long expiry) {
            this.expiry = expiry;
        }
    }

    @Provide
    Arbitrary<List<Op>> ops() {
        return Combinators.combine(Arbitraries.integers().between(0, 6), Arbitraries.integers().between(1, 12),
                Arbitraries.integers().between(1, 4000)).as(Op::new).list().ofMaxSize(200);
    }

    @Property(tries = 300)
    void trackerBehavesLikeTheModel(@ForAll("ops") List<Op> ops) {
        ManualTicker ticker = new ManualTicker();
        List<Long> expired = new ArrayList<>();
        SessionTrackerImpl tracker = new SessionTrackerImpl(TICK, s -> expired.add(s.getSessionId()), ticker);
        Map<Long, Model> model = new HashMap<>();
        long now = 0;
        for (Op op : ops) {
            long id = op.session();
            Model m = model.get(id);
            long expiry = (now + op.amount()) / TICK * TICK + TICK;
            switch (op.kind()) {
                case 0 -> {
                    assertThat(tracker.trackSession(id, op.amount())).isEqualTo(m == null);
                    if (m == null) {
                        model.put(id, new Model(expiry));
                    } else if (!m.closing) {
                        m.expiry = expiry;
                    }
                }
                case 1 -> {
                    assertThat(tracker.touchSession(id, op.amount())).isEqualTo(m != null && !m.closing);
                    if (m != null && !m.closing) {
                        m.expiry = expiry;
                    }
                }
                case 2 -> {
                    tracker.setSessionClosing(id);
                    if (m != null) {
                        m.closing = true;
                    }
                }
                case 3 -> {
                    tracker.removeSession(id);
                    model.remove(id);
                }
                case 4 -> {
                    ticker.advance(op.amount(), TimeUnit.MILLISECONDS);
                    now += op.amount();
                }
                default -> {
                    List<Long> expected = new ArrayList<>();
                    if (tracker.waitTimeMillis() == 0) {
                        for (Map.Entry<Long, Model> e : model.entrySet()) {
                            Model s = e.getValue();
                            if (!s.expired && s.expiry <= now) {
                                s.expired = true;
                                s.closing = true;
                                expected.add(e.getKey());
                            }
                        }
                    }
                    expired.clear();
                    tracker.expireDue();
                    assertThat(expired).containsExactlyInAnyOrderElementsOf(expected);
                }
            }
            for (long sid = 1; sid <= 12; sid++) {
                Model s = model.get(sid);
                assertThat(tracker.isTrackingSession(sid)).isEqualTo(s != null);
            }
            Map<Long, Set<Long>> buckets = new TreeMap<>();
            model.forEach((sid, s) -> {
                if (!s.expired) {
                    buckets.computeIfAbsent(s.expiry, t -> new HashSet<>()).add(sid);
                }
            });
            assertThat(tracker.getSessionExpiryMap()).isEqualTo(buckets);
        }
    }
}
