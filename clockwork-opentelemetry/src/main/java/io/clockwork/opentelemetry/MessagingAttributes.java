package io.clockwork.opentelemetry;

import io.opentelemetry.api.common.AttributeKey;

/** The OpenTelemetry messaging semantic-convention attributes Clockwork's spans carry. */
final class MessagingAttributes {

    /** {@code messaging.system}: always {@value #SYSTEM}. */
    static final AttributeKey<String> SYSTEM_KEY = AttributeKey.stringKey("messaging.system");
    /** The value of {@code messaging.system}. */
    static final String SYSTEM = "clockwork";
    static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
    static final AttributeKey<String> OPERATION_TYPE = AttributeKey.stringKey("messaging.operation.type");
    static final AttributeKey<String> OPERATION_NAME = AttributeKey.stringKey("messaging.operation.name");
    static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");
    static final AttributeKey<Long> BATCH_COUNT = AttributeKey.longKey("messaging.batch.message_count");
    /** Clockwork's own: which delivery of the message this is, from 1. */
    static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("messaging.clockwork.attempt");

    private MessagingAttributes() {
    }
}
