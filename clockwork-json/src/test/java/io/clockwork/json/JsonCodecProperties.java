package io.clockwork.json;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** Round trips of generated records through the default {@link JsonCodec}. */
class JsonCodecProperties {

    record Item(String sku, int quantity, BigDecimal price) {
    }

    record Shipment(String id, long sequence, double weight, boolean express, Instant due, Optional<Duration> grace,
                    List<Item> items, Map<String, String> labels) {
    }

    private final JsonCodec<Shipment> codec = JsonCodec.of(Shipment.class);

    @Property(tries = 300)
    void everyRecordComesBackEqual(@ForAll("shipments") Shipment shipment) {
        assertThat(codec.decode(codec.encode(shipment))).isEqualTo(shipment);
    }

    @Property(tries = 200)
    void equalRecordsEncodeToEqualBytes(@ForAll("shipments") Shipment shipment) {
        Map<String, String> reversed = new LinkedHashMap<>();
        List<String> keys = List.copyOf(shipment.labels().keySet());
        for (int i = keys.size() - 1; i >= 0; i--) {
            reversed.put(keys.get(i), shipment.labels().get(keys.get(i)));
        }
        Shipment twin = new Shipment(shipment.id(), shipment.sequence(), shipment.weight(), shipment.express(),
                shipment.due(), shipment.grace(), List.copyOf(shipment.items()), reversed);
        assertThat(twin).isEqualTo(shipment);
        assertThat(codec.encode(twin)).isEqualTo(codec.encode(shipment));
    }

    @Provide
    Arbitrary<Shipment> shipments() {
        // Any char but a surrogate: a lone surrogate is not Unicode text, and UTF-8 has no form for it.
        Arbitrary<String> text = Arbitraries.strings().withCharRange('\u0000', '\uD7FF')
                .withCharRange('\uE000', '\uFFFF').ofMaxLength(20);
        Arbitrary<BigDecimal> price = Arbitraries.bigDecimals().between(new BigDecimal("-1e12"), new BigDecimal("1e12"))
                .ofScale(4);
        Arbitrary<Item> item = Combinators.combine(text, Arbitraries.integers(), price).as(Item::new);
        Arbitrary<Instant> due = Arbitraries.longs().between(-62_000_000_000L, 250_000_000_000L)
                .flatMap(s -> Arbitraries.integers().between(0, 999_999_999).map(n -> Instant.ofEpochSecond(s, n)));
        Arbitrary<Optional<Duration>> grace = Arbitraries.longs().between(0, 1_000_000_000_000L)
                .map(Duration::ofNanos).optional();
        Arbitrary<Double> weight = Arbitraries.doubles().withSpecialValue(0.0).withSpecialValue(Double.MAX_VALUE)
                .withSpecialValue(Double.MIN_VALUE);
        return Combinators.combine(text, Arbitraries.longs(), weight, Arbitraries.of(true, false), due, grace,
                        item.list().ofMaxSize(5), Arbitraries.maps(text, text).ofMaxSize(6))
                .as(Shipment::new);
    }
}
