package io.clockwork.json;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.jsontype.BasicPolymorphicTypeValidator;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.clockwork.queue.CodecException;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JsonCodecTest {

    record Point(int x, int y) {
    }

    record Line(String name, Point from, Point to) {
    }

    record Order(String id, BigDecimal amount, List<String> items, Map<String, Integer> counts) {
    }

    record Timed(Instant at, Duration after, Optional<String> note, LocalDate day) {
    }

    record Zoned(ZonedDateTime zoned, OffsetDateTime offset) {
    }

    record Big(BigInteger integer, BigDecimal decimal, long max, double small) {
    }

    record Box<T>(T content) {
    }

    record Positive(int value) {
        Positive {
            if (value <= 0) {
                throw new IllegalArgumentException("value must be positive");
            }
        }
    }

    record Secret(String password) {
    }

    record Tags(TreeSet<String> tags) {
    }

    record Customer(String firstName, Instant since) {
    }

    /** A POJO with a creator and properties declared out of alphabetical order. */
    static final class Account {
        private final String owner;
        private final long balance;

        @JsonCreator
        Account(@JsonProperty("owner") String owner, @JsonProperty("balance") long balance) {
            this.owner = owner;
            this.balance = balance;
        }

        public String getOwner() {
            return owner;
        }

        public long getBalance() {
            return balance;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Account && ((Account) o).owner.equals(owner) && ((Account) o).balance == balance;
        }

        @Override
        public int hashCode() {
            return owner.hashCode() * 31 + Long.hashCode(balance);
        }
    }

    /** A mutable POJO with setters, properties declared out of alphabetical order. */
    public static final class Settings {
        public int zeta;
        public String alpha;
        public boolean mid;
    }

    private static String json(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static byte[] utf8(String json) {
        return json.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void recordRoundTrips() {
        JsonCodec<Point> codec = JsonCodec.of(Point.class);
        byte[] bytes = codec.encode(new Point(3, -4));
        assertThat(json(bytes)).isEqualTo("{\"x\":3,\"y\":-4}");
        assertThat(codec.decode(bytes)).isEqualTo(new Point(3, -4));
    }

    @Test
    void nestedRecordsRoundTrip() {
        JsonCodec<Line> codec = JsonCodec.of(Line.class);
        Line line = new Line("diagonal", new Point(0, 0), new Point(5, 5));
        assertThat(codec.decode(codec.encode(line))).isEqualTo(line);
    }

    @Test
    void listsAndMapsRoundTrip() {
        JsonCodec<Order> codec = JsonCodec.of(Order.class);
        Order order = new Order("o-1", new BigDecimal("12.50"), List.of("apple", "pear"),
                Map.of("apple", 2, "pear", 1));
        Order back = codec.decode(codec.encode(order));
        assertThat(back).isEqualTo(order);
        assertThat(back.amount()).hasToString("12.50");
    }

    @Test
    void pojoWithCreatorRoundTripsWithPropertiesInAlphabeticalOrder() {
        JsonCodec<Account> codec = JsonCodec.of(Account.class);
        byte[] bytes = codec.encode(new Account("ada", 42));
        assertThat(json(bytes)).isEqualTo("{\"balance\":42,\"owner\":\"ada\"}");
        assertThat(codec.decode(bytes)).isEqualTo(new Account("ada", 42));
    }

    @Test
    void mutablePojoIsWrittenWithSortedProperties() {
        Settings settings = new Settings();
        settings.zeta = 1;
        settings.alpha = "a";
        settings.mid = true;
        JsonCodec<Settings> codec = JsonCodec.of(Settings.class);
        assertThat(json(codec.encode(settings))).isEqualTo("{\"alpha\":\"a\",\"mid\":true,\"zeta\":1}");
        assertThat(codec.decode(codec.encode(settings))).usingRecursiveComparison().isEqualTo(settings);
    }

    @Test
    void javaTimeAndOptionalAreIsoStringsAndRoundTrip() {
        JsonCodec<Timed> codec = JsonCodec.of(Timed.class);
        Timed timed = new Timed(Instant.parse("2030-01-02T03:04:05.123456789Z"), Duration.ofMillis(1500),
                Optional.of("late"), LocalDate.of(2030, 1, 2));
        byte[] bytes = codec.encode(timed);
        assertThat(json(bytes)).isEqualTo("{\"after\":\"PT1.5S\",\"at\":\"2030-01-02T03:04:05.123456789Z\","
                + "\"day\":\"2030-01-02\",\"note\":\"late\"}");
        assertThat(codec.decode(bytes)).isEqualTo(timed);

        Timed empty = new Timed(Instant.EPOCH, Duration.ZERO, Optional.empty(), LocalDate.EPOCH);
        assertThat(codec.decode(codec.encode(empty))).isEqualTo(empty);
    }

    @Test
    void zonesAndOffsetsAreKept() {
        JsonCodec<Zoned> codec = JsonCodec.of(Zoned.class);
        Zoned zoned = new Zoned(ZonedDateTime.of(2030, 6, 1, 12, 0, 0, 0, ZoneId.of("Europe/Paris")),
                OffsetDateTime.of(2030, 6, 1, 12, 0, 0, 0, ZoneOffset.ofHours(-5)));
        assertThat(codec.decode(codec.encode(zoned))).isEqualTo(zoned);
    }

    @Test
    void genericTypesGoThroughTypeReference() {
        JsonCodec<Box<List<Point>>> codec = JsonCodec.of(new TypeReference<Box<List<Point>>>() { });
        Box<List<Point>> box = new Box<>(List.of(new Point(1, 2), new Point(3, 4)));
        Box<List<Point>> back = codec.decode(codec.encode(box));
        assertThat(back).isEqualTo(box);
        assertThat(back.content().get(0)).isInstanceOf(Point.class);
        assertThat(codec).hasToString("JsonCodec<" + Box.class.getName() + "<java.util.List<" + Point.class.getName()
                + ">>>");
    }

    @Test
    void javaTypeFromTheMappersTypeFactory() {
        ObjectMapper mapper = JsonCodec.defaultMapperBuilder().build();
        JavaType type = mapper.getTypeFactory().constructMapType(TreeMap.class, String.class, Point.class);
        JsonCodec<TreeMap<String, Point>> codec = JsonCodec.of(type, mapper);
        TreeMap<String, Point> map = new TreeMap<>(Map.of("a", new Point(1, 1)));
        assertThat(codec.decode(codec.encode(map))).isEqualTo(map).isInstanceOf(TreeMap.class);
        assertThat(codec.type()).isEqualTo(type);
    }

    @Test
    void unknownPropertiesAreIgnoredByDefault() {
        JsonCodec<Point> codec = JsonCodec.of(Point.class);
        assertThat(codec.decode(utf8("{\"x\":1,\"y\":2,\"z\":3,\"extra\":{\"deep\":[1,2]}}")))
                .isEqualTo(new Point(1, 2));
    }

    @Test
    void unknownPropertiesFailWithAMapperThatSaysSo() {
        ObjectMapper strict = JsonCodec.defaultMapperBuilder()
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();
        JsonCodec<Point> codec = JsonCodec.of(Point.class, strict);
        assertThatThrownBy(() -> codec.decode(utf8("{\"x\":1,\"y\":2,\"z\":3}")))
                .isInstanceOf(CodecException.class)
                .hasMessageContaining(Point.class.getName())
                .hasMessageContaining("unknown property \"z\"");
    }

    @Test
    void malformedJsonIsACodecExceptionNamingTypeAndSize() {
        JsonCodec<Point> codec = JsonCodec.of(Point.class);
        byte[] payload = utf8("{\"x\":1,");
        assertThatThrownBy(() -> codec.decode(payload))
                .isInstanceOf(CodecException.class)
                .hasMessageStartingWith("JsonCodec<" + Point.class.getName() + ">: cannot decode a "
                        + payload.length + "-byte payload")
                .hasMessageContaining("ends early");
        assertThatThrownBy(() -> codec.decode(utf8("{x:1}")))
                .isInstanceOf(CodecException.class)
                .hasMessageContaining("malformed JSON")
                .hasMessageContaining("line 1");
        assertThatThrownBy(() -> codec.decode(new byte[0]))
                .isInstanceOf(CodecException.class)
                .hasMessageContaining("0-byte payload: the payload is empty");
    }

    @Test
    void trailingContentIsRefused() {
        JsonCodec<Point> codec = JsonCodec.of(Point.class);
        assertThatThrownBy(() -> codec.decode(utf8("{\"x\":1,\"y\":2} {\"x\":3,\"y\":4}")))
                .isInstanceOf(CodecException.class);
    }

    @Test
    void wrongTypeIsACodecExceptionWithThePathButNotTheValue() {
        JsonCodec<Line> codec = JsonCodec.of(Line.class);
        assertThatThrownBy(() -> codec.decode(utf8("{\"name\":\"l\",\"from\":{\"x\":\"hunter2\",\"y\":0}}")))
                .isInstanceOf(CodecException.class)
                .hasMessageContaining(Line.class.getName())
                .hasMessageContaining("$.from.x")
                .hasMessageNotContaining("hunter2")
                .hasNoCause();
        assertThatThrownBy(() -> codec.decode(utf8("[\"hunter2\"]")))
                .isInstanceOf(CodecException.class)
                .hasMessageContaining("does not fit")
                .hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> codec.decode(utf8("\"hunter2\"")))
                .isInstanceOf(CodecException.class)
                .hasMessageNotContaining("hunter2");
    }

    @Test
    void malformedPayloadsNeverQuoteTheirContent() {
        JsonCodec<Secret> codec = JsonCodec.of(Secret.class);
        for (String payload : List.of("{\"password\":hunter2}", "hunter2", "{\"password\":\"hunter2\"",
                "{\"password\":[\"hunter2\"]}", "{\"password\":{\"hunter2\":1}}")) {
            assertThatThrownBy(() -> codec.decode(utf8(payload)))
                    .as(payload)
                    .isInstanceOf(CodecException.class)
                    .hasMessageNotContaining("hunter2")
                    .satisfies(e -> assertThat(String.valueOf(e.getCause())).doesNotContain("hunter2"));
        }
    }

    @Test
    void jsonNullPayloadIsAnError() {
        JsonCodec<Point> codec = JsonCodec.of(Point.class);
        assertThatThrownBy(() -> codec.decode(utf8("null")))
                .isInstanceOf(CodecException.class)
                .hasMessageContaining("JSON null")
                .hasMessageContaining(Point.class.getName());
        assertThatThrownBy(() -> codec.decode(utf8(" null ")))
                .isInstanceOf(CodecException.class);
    }

    @Test
    void nullForAPrimitiveIsAnError() {
        assertThatThrownBy(() -> JsonCodec.of(Point.class).decode(utf8("{\"x\":null,\"y\":1}")))
                .isInstanceOf(CodecException.class)
                .hasMessageContaining("$.x");
    }

    @Test
    void missingPrimitiveIsAnErrorAndMissingReferenceIsNull() {
        assertThatThrownBy(() -> JsonCodec.of(Point.class).decode(utf8("{\"x\":1}")))
                .isInstanceOf(CodecException.class)
                .hasMessageContaining("$.y");
        assertThat(JsonCodec.of(Line.class).decode(utf8("{\"name\":\"l\"}"))).isEqualTo(new Line("l", null, null));
        assertThat(JsonCodec.of(Timed.class).decode(utf8("{\"after\":\"PT1S\"}")).note()).isEmpty();
    }

    @Test
    void nullValueAndNullBytesAreRefused() {
        JsonCodec<Point> codec = JsonCodec.of(Point.class);
        assertThatThrownBy(() -> codec.encode(null))
                .isInstanceOf(NullPointerException.class).hasMessage("value");
        assertThatThrownBy(() -> codec.decode(null))
                .isInstanceOf(NullPointerException.class).hasMessage("bytes");
    }

    @Test
    void hugeNumbersRoundTripInBigTypesAndOverflowPrimitivesWithAnError() {
        JsonCodec<Big> codec = JsonCodec.of(Big.class);
        Big big = new Big(new BigInteger("1" + "0".repeat(300)), new BigDecimal("-1.5e-300"), Long.MAX_VALUE,
                Double.MIN_VALUE);
        assertThat(codec.decode(codec.encode(big))).isEqualTo(big);

        String tooBig = "9".repeat(30);
        assertThatThrownBy(() -> codec.decode(utf8("{\"integer\":1,\"decimal\":1,\"max\":" + tooBig
                + ",\"small\":0}")))
                .isInstanceOf(CodecException.class)
                .hasMessageContaining("out of range")
                .hasMessageNotContaining(tooBig);
    }

    @Test
    void overlongNumbersHitJacksonsReadConstraint() {
        JsonCodec<Big> codec = JsonCodec.of(Big.class);
        assertThatThrownBy(() -> codec.decode(utf8("{\"integer\":" + "7".repeat(5000) + "}")))
                .isInstanceOf(CodecException.class)
                .hasMessageContaining("StreamConstraintsException")
                .hasMessageNotContaining("7777");
    }

    @Test
    void nonAsciiStringsRoundTripAsUtf8() {
        JsonCodec<Secret> codec = JsonCodec.of(Secret.class);
        String text = "Zoë – 東京 – \uD83D\uDE80 – \u0000 – \"quoted\" \\ </script>";
        byte[] bytes = codec.encode(new Secret(text));
        assertThat(codec.decode(bytes).password()).isEqualTo(text);
        assertThat(json(bytes)).contains("東京");
    }

    @Test
    void loneSurrogateDoesNotRoundTripSilently() {
        // Jackson escapes a lone surrogate as \ud800 or fails; either way it must not turn into another string.
        JsonCodec<Secret> codec = JsonCodec.of(Secret.class);
        String lone = "a\uD800b";
        byte[] bytes;
        try {
            bytes = codec.encode(new Secret(lone));
        } catch (CodecException refused) {
            return;
        }
        assertThat(codec.decode(bytes).password()).isEqualTo(lone);
    }

    @Test
    void equalMapsEncodeToEqualBytesWhateverTheirOrder() {
        JsonCodec<Order> codec = JsonCodec.of(Order.class);
        Map<String, Integer> forward = new LinkedHashMap<>();
        Map<String, Integer> backward = new LinkedHashMap<>();
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            keys.add("key-" + i);
        }
        for (String key : keys) {
            forward.put(key, key.length());
        }
        Collections.reverse(keys);
        for (String key : keys) {
            backward.put(key, key.length());
        }
        assertThat(forward).isEqualTo(backward);
        byte[] a = codec.encode(new Order("o", BigDecimal.ONE, List.of(), forward));
        byte[] b = codec.encode(new Order("o", BigDecimal.ONE, List.of(), backward));
        assertThat(a).isEqualTo(b);
        assertThat(json(a)).contains("{\"key-0\":5,\"key-1\":5,\"key-10\":6,");

        HashMap<String, Integer> hashed = new HashMap<>(64);
        hashed.putAll(backward);
        assertThat(codec.encode(new Order("o", BigDecimal.ONE, List.of(), hashed))).isEqualTo(a);
    }

    @Test
    void sortedSetsAreDeterministicToo() {
        JsonCodec<Tags> codec = JsonCodec.of(Tags.class);
        Tags tags = new Tags(new TreeSet<>(List.of("b", "a", "c")));
        assertThat(json(codec.encode(tags))).isEqualTo("{\"tags\":[\"a\",\"b\",\"c\"]}");
        assertThat(codec.decode(codec.encode(tags))).isEqualTo(tags);
    }

    @Test
    void customMapperIsUsedAsConfigured() {
        ObjectMapper snake = JsonCodec.defaultMapperBuilder()
                .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE).build();
        JsonCodec<Customer> codec = JsonCodec.of(Customer.class, snake);
        Customer customer = new Customer("Ada", Instant.parse("2030-01-01T00:00:00Z"));
        byte[] bytes = codec.encode(customer);
        assertThat(json(bytes)).isEqualTo("{\"first_name\":\"Ada\",\"since\":\"2030-01-01T00:00:00Z\"}");
        assertThat(codec.decode(bytes)).isEqualTo(customer);

        // A plain mapper of the caller's gets nothing added: here, no java.time module and timestamps.
        JsonCodec<Point> plain = JsonCodec.of(Point.class, new ObjectMapper());
        assertThat(plain.decode(plain.encode(new Point(1, 2)))).isEqualTo(new Point(1, 2));
        assertThatThrownBy(() -> JsonCodec.of(Customer.class, new ObjectMapper()).encode(customer))
                .isInstanceOf(CodecException.class)
                .hasMessageContaining("cannot encode")
                .hasCauseInstanceOf(com.fasterxml.jackson.databind.exc.InvalidDefinitionException.class);
    }

    @Test
    void laterChangesToTheMapperDoNotReachTheCodecsFeatures() {
        ObjectMapper mapper = JsonCodec.defaultMapperBuilder().build();
        JsonCodec<Point> codec = JsonCodec.of(Point.class, mapper);
        mapper.enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
        assertThat(codec.decode(utf8("{\"x\":1,\"y\":2,\"z\":3}"))).isEqualTo(new Point(1, 2));
    }

    @Test
    void mapperWithDefaultTypingIsRefused() {
        BasicPolymorphicTypeValidator anything = BasicPolymorphicTypeValidator.builder()
                .allowIfBaseType(Object.class).build();
        ObjectMapper typed = JsonMapper.builder()
                .activateDefaultTyping(anything, ObjectMapper.DefaultTyping.NON_FINAL).build();
        assertThatThrownBy(() -> JsonCodec.of(Point.class, typed))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("default typing");
        ObjectMapper typedLater = new ObjectMapper();
        typedLater.activateDefaultTypingAsProperty(anything, ObjectMapper.DefaultTyping.NON_FINAL, "@class");
        assertThatThrownBy(() -> JsonCodec.of(new TypeReference<List<Point>>() { }, typedLater))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void constructorFailuresNameTheValuesOwnError() {
        JsonCodec<Positive> codec = JsonCodec.of(Positive.class);
        assertThatThrownBy(() -> codec.decode(utf8("{\"value\":-1}")))
                .isInstanceOf(CodecException.class)
                .hasMessageContaining(Positive.class.getName())
                .hasMessageContaining("value must be positive")
                .hasCauseInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void typesJacksonCannotWriteFailWithACodecException() {
        JsonCodec<Object> codec = JsonCodec.of(Object.class);
        assertThatThrownBy(() -> codec.encode(new Object()))
                .isInstanceOf(CodecException.class)
                .hasMessageContaining("JsonCodec<java.lang.Object>: cannot encode a java.lang.Object");
    }

    @Test
    void oneCodecServesManyThreads() throws Exception {
        JsonCodec<Line> codec = JsonCodec.of(Line.class);
        int threads = 8;
        int rounds = 2_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                results.add(pool.submit(() -> {
                    start.await();
                    int ok = 0;
                    for (int i = 0; i < rounds; i++) {
                        Line line = new Line("t" + thread + "-" + i, new Point(thread, i), new Point(i, -thread));
                        byte[] bytes = codec.encode(line);
                        if (codec.decode(bytes).equals(line)
                                && json(bytes).equals(json(codec.encode(codec.decode(bytes))))) {
                            ok++;
                        }
                    }
                    return ok;
                }));
            }
            start.countDown();
            for (Future<Integer> result : results) {
                assertThat(result.get(60, TimeUnit.SECONDS)).isEqualTo(rounds);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
