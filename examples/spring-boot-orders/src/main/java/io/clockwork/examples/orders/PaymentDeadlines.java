package io.clockwork.examples.orders;

import io.clockwork.spring.ClockworkListener;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.stereotype.Component;

/** Expires the orders whose payment deadline fell due. Thread-safe: four handlers call it at once. */
@Component
public class PaymentDeadlines {

    /** The queue of payment deadlines. */
    public static final String QUEUE = "payment-deadlines";

    private final Set<String> expired = ConcurrentHashMap.newKeySet();

    @ClockworkListener(queue = QUEUE, concurrency = 4)
    void expire(Order order) {
        expired.add(order.id()); // a real service would release the order's stock here
    }

    /** @return the ids of the orders expired so far */
    public Set<String> expired() {
        return expired;
    }
}
