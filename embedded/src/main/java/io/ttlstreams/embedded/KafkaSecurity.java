package io.ttlstreams.embedded;

import java.util.Arrays;
import java.util.Locale;

/** Whether the embedded broker authenticates and authorizes its clients. */
public enum KafkaSecurity {

    /** One PLAINTEXT listener, no authorizer: every client may do anything (the development default). */
    NONE("none"),

    /**
     * A SASL_PLAINTEXT listener with SCRAM-SHA-512, Kafka's {@code StandardAuthorizer} with {@code
     * allow.everyone.if.no.acl.found=false}, and the users and ACLs {@code ttl-streams platform} renders ({@link
     * KafkaUsers}): each part of the stack runs as its own user, as on a Strimzi cluster with {@code authorization:
     * simple}. The stack's own set-up uses a separate PLAINTEXT listener on loopback whose (anonymous) principal is
     * the only super user.
     */
    SCRAM_ACLS("scram-acls");

    private final String configValue;

    KafkaSecurity(String configValue) {
        this.configValue = configValue;
    }

    /** The value of {@code embedded.kafka.security}. */
    public String configValue() {
        return configValue;
    }

    /** Whether clients authenticate and ACLs are enforced. */
    public boolean enforced() {
        return this != NONE;
    }

    /** The mode named {@code value} ({@link #configValue()}). */
    public static KafkaSecurity of(String value) {
        return Arrays.stream(values())
                .filter(mode -> mode.configValue.equals(value.trim().toLowerCase(Locale.ROOT)))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("No embedded Kafka security mode " + value));
    }
}
