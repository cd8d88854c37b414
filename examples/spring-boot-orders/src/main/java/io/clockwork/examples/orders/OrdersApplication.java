package io.clockwork.examples.orders;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * An order service's payment deadlines on Clockwork's Spring Boot starter: each order gets a deadline as a delayed
 * message, a paid order cancels it, and a {@code @ClockworkListener} expires the orders whose deadline falls due.
 * In process by default; {@code --clockwork.redis.uri=redis://host:port} puts the queue on Redis. Actuator's health
 * and metrics endpoints are served over HTTP while it runs ({@code --orders.linger=5m} keeps them up after the report).
 */
@SpringBootApplication
public class OrdersApplication {

    /**
     * Runs the demo and exits with its status: 0 when every order is accounted for.
     *
     * @param args Spring Boot arguments, e.g. {@code --orders.count=5000}
     */
    public static void main(String[] args) {
        System.exit(SpringApplication.exit(SpringApplication.run(OrdersApplication.class, args)));
    }
}
