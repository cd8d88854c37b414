package io.clockwork.examples.orders;

import io.clockwork.spring.ClockworkListener;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.stereotype.Component;

/** Expires the orders whose payment deadline fell due. Thread-safe: four handlers call it at once. */
@Component
public class PaymentDeadlines {

    /** The queue of payment deadlines. */
    public static final String QUEUE = "payment-deadlines";

    private final Map<String, Integer> expired = new ConcurrentHashMap<>();

    @ClockworkListener(queue = QUEUE, concurrency = 4)
    void expire(Order order) {
        expired.merge(order.id(), 1, Integer::sum); // a real service would release the order's stock here
    }

    /** @return the ids of the orders expired so far */
    public Set<String> expired() {
        return expired.keySet();
    }

    /**
     * @param id an order's id
     * @return how many times the order was expired: more than once would release its stock twice
     */
    public int timesExpired(String id) {
        return expired.getOrDefault(id, 0);
    }
}
