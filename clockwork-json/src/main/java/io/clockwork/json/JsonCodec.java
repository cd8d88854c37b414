package io.clockwork.json;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.exc.InvalidDefinitionException;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.clockwork.queue.Codec;
import io.clockwork.queue.CodecException;

import java.io.IOException;
import java.lang.reflect.Type;
import java.util.Map;
import java.util.Objects;

/**
 * A {@link Codec} that writes values as JSON (UTF-8) and reads them back as one target type, through Jackson.
 * Thread-safe: it holds an {@link ObjectReader} and an {@link ObjectWriter} built once, at creation, and no other
 * state.
 *
 * <p>{@link #of(Class)} and {@link #of(TypeReference)} use the default mapper of {@link #defaultMapperBuilder()}:
 * <ul>
 *   <li>records and POJOs, {@code Optional} and the {@code java.time} types, these written as ISO-8601 strings
 *       ({@code "2030-01-01T00:00:00Z"}, {@code "PT1.5S"}), never as numeric timestamps; offsets and zone ids are
 *       kept, so such values come back equal;</li>
 *   <li><b>deterministic output</b>: map entries ordered by key, and the properties of records and POJOs in
 *       alphabetical order (reflection does not promise an order of fields). Equal values then encode to equal
 *       bytes, which the Redisson face relies on: its {@code contains} and {@code remove(Object)} find an element by
 *       its encoded bytes. Sets are written in their iteration order, so two equal {@code HashSet}s may differ in
 *       bytes: use a sorted set or a list in values that must match that way;</li>
 *   <li><b>unknown properties are ignored</b>: a message waits in the queue across deployments, so a consumer can
 *       meet a payload from a newer producer that added a field; failing would send every such message to the dead
 *       letters during a rolling upgrade. A missing property reads as null (or empty, for an {@code Optional}),
 *       but a primitive without a value, missing or JSON {@code null}, is a failure rather than a silent zero: give
 *       a field that producers may not write yet a reference type. Anything after the first JSON value is a
 *       failure too;</li>
 *   <li><b>no default typing</b>: the payload never names the class to instantiate. Polymorphic deserialization
 *       that lets the payload choose a class (Jackson's default typing, or {@code @JsonTypeInfo(use = Id.CLASS)}) is
 *       a known remote-code-execution class of vulnerability when payloads can come from someone else, and a queue
 *       in Redis is such a place. A mapper with default typing enabled is refused; for polymorphic values, use
 *       {@code @JsonTypeInfo(use = Id.NAME)} with {@code @JsonSubTypes} on the base type.</li>
 * </ul>
 *
 * <p>A caller's mapper ({@link #of(Class, ObjectMapper)} and the like) is used as it is configured, with nothing
 * added: the codec takes its reader and writer once, when created. Configure the mapper fully before that and do not
 * change it afterwards (Jackson's readers and writers share the mapper's caches, so a later change would reach the
 * codec in part). To keep the defaults above and add to them, start from {@link #defaultMapperBuilder()}.
 *
 * <p>Failures are {@link CodecException}s whose message names this codec's target type and the payload's size, the
 * kind of error, and where in the document it lies (line, column and property path), but never the payload itself,
 * which may hold secrets: a queue keeps that message as a dead letter's reason. For the same reason, Jackson's
 * exceptions about a payload are not chained as the cause, since their messages quote it; exceptions of the
 * application's own code (a record's constructor that rejects a value, a custom serializer) and Jackson's errors
 * about a type's definition are. A payload that is JSON {@code null} is an error: a queue holds no null values.
 *
 * <p>In a named module, Jackson reaches value classes by reflection: open their package to
 * {@code com.fasterxml.jackson.databind}.
 *
 * @param <V> the value type
 */
public final class JsonCodec<V> implements Codec<V> {

    private static final ObjectMapper DEFAULT_MAPPER = defaultMapperBuilder().build();

    private final JavaType type;
    private final ObjectReader reader;
    private final ObjectWriter writer;

    private JsonCodec(JavaType type, ObjectMapper mapper) {
        this.type = type;
        this.reader = mapper.readerFor(type);
        this.writer = mapper.writerFor(type);
    }

    /**
     * A codec for one class, on the default mapper.
     *
     * @param type the value class (for a generic type, use {@link #of(TypeReference)})
     * @param <V>  the value type
     * @return the codec
     */
    public static <V> JsonCodec<V> of(Class<V> type) {
        return of(type, DEFAULT_MAPPER);
    }

    /**
     * A codec for a generic type, on the default mapper: {@code JsonCodec.of(new TypeReference<List<Order>>() {})}.
     *
     * @param type the value type
     * @param <V>  the value type
     * @return the codec
     */
    public static <V> JsonCodec<V> of(TypeReference<V> type) {
        return of(type, DEFAULT_MAPPER);
    }

    /**
     * A codec for one class, on a caller's mapper, which must not change afterwards (see the class comment).
     *
     * @param type   the value class
     * @param mapper the mapper, fully configured
     * @param <V>    the value type
     * @return the codec
     * @throws IllegalArgumentException if the mapper has default typing enabled
     */
    public static <V> JsonCodec<V> of(Class<V> type, ObjectMapper mapper) {
        Objects.requireNonNull(type, "type");
        return create(checked(mapper).constructType(type), mapper);
    }

    /**
     * A codec for a generic type, on a caller's mapper, which must not change afterwards (see the class comment).
     *
     * @param type   the value type
     * @param mapper the mapper, fully configured
     * @param <V>    the value type
     * @return the codec
     * @throws IllegalArgumentException if the mapper has default typing enabled
     */
    public static <V> JsonCodec<V> of(TypeReference<V> type, ObjectMapper mapper) {
        Objects.requireNonNull(type, "type");
        return create(checked(mapper).constructType(type), mapper);
    }

    /**
     * A codec for a type built with the mapper's {@code TypeFactory}, on that mapper, which must not change
     * afterwards (see the class comment). The caller vouches that {@code V} matches {@code type}.
     *
     * @param type   the value type
     * @param mapper the mapper, fully configured
     * @param <V>    the value type
     * @return the codec
     * @throws IllegalArgumentException if the mapper has default typing enabled
     */
    public static <V> JsonCodec<V> of(JavaType type, ObjectMapper mapper) {
        Objects.requireNonNull(type, "type");
        return create(type, checked(mapper));
    }

    /**
     * A builder of the default mapper (see the class comment), to add modules or settings to before building the
     * mapper a codec gets. Each call returns a new builder.
     *
     * @return the builder
     */
    public static JsonMapper.Builder defaultMapperBuilder() {
        return JsonMapper.builder()
                .addModule(new JavaTimeModule())
                .addModule(new Jdk8Module())
                .enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
                .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .disable(SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
                .enable(SerializationFeature.WRITE_DATES_WITH_ZONE_ID)
                .disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE)
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION);
    }

    /** @return the type this codec reads */
    public JavaType type() {
        return type;
    }

    /**
     * @param value a non-null value
     * @return its JSON, UTF-8
     * @throws NullPointerException if {@code value} is null
     * @throws CodecException       if Jackson cannot write it
     */
    @Override
    public byte[] encode(V value) {
        Objects.requireNonNull(value, "value");
        try {
            return writer.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new CodecException(this + ": cannot encode a " + value.getClass().getName() + ": "
                    + e.getOriginalMessage() + path(e), e);
        } catch (RuntimeException e) {
            throw new CodecException(this + ": cannot encode a " + value.getClass().getName() + ": " + e, e);
        }
    }

    /**
     * @param bytes JSON, UTF-8
     * @return the value, never null
     * @throws NullPointerException if {@code bytes} is null
     * @throws CodecException       if the payload is not JSON, does not fit the type, or is JSON {@code null}
     */
    @Override
    public V decode(byte[] bytes) {
        Objects.requireNonNull(bytes, "bytes");
        V value;
        try {
            value = reader.readValue(bytes);
        } catch (ValueInstantiationException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw failure(bytes, "the constructor of " + name(e.getType()) + " threw " + cause + location(e), cause);
        } catch (InvalidDefinitionException e) {
            throw failure(bytes, "the type cannot be read: " + e.getOriginalMessage() + path(e), e);
        } catch (IOException e) {
            throw failure(bytes, describe(e, bytes.length) + location(e), null);
        } catch (RuntimeException e) {
            throw failure(bytes, e.toString(), e);
        }
        if (value == null) {
            throw failure(bytes, "the payload is JSON null, and a queue holds no null values", null);
        }
        return value;
    }

    /** @return {@code JsonCodec<}the target type{@code >} */
    @Override
    public String toString() {
        return "JsonCodec<" + type.toCanonical() + ">";
    }

    private static <V> JsonCodec<V> create(JavaType type, ObjectMapper mapper) {
        return new JsonCodec<>(type, mapper);
    }

    private static ObjectMapper checked(ObjectMapper mapper) {
        Objects.requireNonNull(mapper, "mapper");
        if (mapper.getDeserializationConfig().getDefaultTyper(null) != null
                || mapper.getSerializationConfig().getDefaultTyper(null) != null) {
            throw new IllegalArgumentException("JsonCodec refuses a mapper with default typing enabled: it lets a"
                    + " payload name the class to instantiate, a known remote-code-execution hazard with payloads"
                    + " from elsewhere; use @JsonTypeInfo(use = Id.NAME) with @JsonSubTypes on polymorphic types");
        }
        return mapper;
    }

    private CodecException failure(byte[] bytes, String reason, Throwable cause) {
        return new CodecException(this + ": cannot decode a " + bytes.length + "-byte payload: " + reason, cause);
    }

    /** What went wrong, in words that quote no part of the payload. */
    private static String describe(IOException error, int size) {
        IOException e = error;
        if (e.getClass() == JsonMappingException.class && e.getCause() instanceof IOException) {
            e = (IOException) e.getCause(); // a parser's error that databind wrapped to add the path
        }
        String kind = e.getClass().getSimpleName();
        if (size == 0) {
            return "the payload is empty (" + kind + ")";
        }
        if (e instanceof StreamConstraintsException) {
            // Its message states a length and the limit, nothing of the content.
            return ((StreamConstraintsException) e).getOriginalMessage() + " (" + kind + ")";
        }
        if (e instanceof JsonEOFException) {
            return "the JSON ends early (" + kind + ")";
        }
        if (e instanceof InputCoercionException) {
            Class<?> target = ((InputCoercionException) e).getTargetType();
            return "a number out of range" + (target == null ? "" : " of " + target.getName()) + " (" + kind + ")";
        }
        if (e instanceof UnrecognizedPropertyException) {
            UnrecognizedPropertyException u = (UnrecognizedPropertyException) e;
            return "unknown property \"" + u.getPropertyName() + "\" of " + name(u.getReferringClass())
                    + " (" + kind + ")";
        }
        if (e instanceof InvalidFormatException) {
            return "a value that is not a valid " + name(((InvalidFormatException) e).getTargetType())
                    + " (" + kind + ")";
        }
        if (e instanceof MismatchedInputException) {
            Class<?> target = ((MismatchedInputException) e).getTargetType();
            return "JSON that does not fit " + (target == null ? "the type" : name(target)) + " (" + kind + ")";
        }
        if (e instanceof JsonMappingException) {
            return "JSON that does not fit the type (" + kind + ")";
        }
        if (e instanceof JsonProcessingException) {
            JsonLocation at = ((JsonProcessingException) e).getLocation();
            if (at != null && at.getByteOffset() >= size) {
                return "the JSON ends early (" + kind + ")";
            }
            return "malformed JSON (" + kind + ")";
        }
        return kind;
    }

    private static String location(IOException e) {
        StringBuilder where = new StringBuilder();
        if (e instanceof JsonProcessingException) {
            JsonLocation at = ((JsonProcessingException) e).getLocation();
            if (at != null && at.getLineNr() > 0) {
                where.append(" at line ").append(at.getLineNr()).append(", column ").append(at.getColumnNr());
            }
        }
        return where.append(path(e)).toString();
    }

    /**
     * The property path of a mapping error: property names and indexes, with map keys left out, since they are
     * data.
     */
    private static String path(Exception e) {
        if (!(e instanceof JsonMappingException) || ((JsonMappingException) e).getPath().isEmpty()) {
            return "";
        }
        StringBuilder path = new StringBuilder(" (path $");
        for (JsonMappingException.Reference step : ((JsonMappingException) e).getPath()) {
            if (step.getIndex() >= 0) {
                path.append('[').append(step.getIndex()).append(']');
            } else if (step.getFrom() instanceof Map) {
                path.append("[key]");
            } else if (step.getFieldName() != null) {
                path.append('.').append(step.getFieldName());
            }
        }
        return path.append(')').toString();
    }

    private static String name(Type type) {
        if (type == null) {
            return "the type";
        }
        if (type instanceof JavaType) {
            return ((JavaType) type).toCanonical();
        }
        return type instanceof Class ? ((Class<?>) type).getName() : type.getTypeName();
    }
}
