/**
 * Clockwork JSON: {@code JsonCodec}, a {@code Codec} that turns records and POJOs into JSON through Jackson, so that
 * {@code io.clockwork.core} itself stays free of dependencies.
 *
 * <p>Jackson's databind is read transitively because the factories accept a caller's {@code ObjectMapper},
 * {@code JavaType} or {@code TypeReference}. Jackson reaches value classes by reflection: a named module whose
 * values go through the codec opens their package to {@code com.fasterxml.jackson.databind}.
 */
module io.clockwork.json {
    requires transitive io.clockwork.core;
    requires transitive com.fasterxml.jackson.databind;
    requires com.fasterxml.jackson.datatype.jsr310;
    requires com.fasterxml.jackson.datatype.jdk8;

    exports io.clockwork.json;
}
