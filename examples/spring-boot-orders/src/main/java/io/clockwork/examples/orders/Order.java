package io.clockwork.examples.orders;

/**
 * An order awaiting payment; travels through the queue as JSON.
 *
 * @param id    the order's id, also its deadline message's id
 * @param cents the amount due
 */
public record Order(String id, long cents) {
}
