package io.ttlstreams.platform;

import java.util.List;
import java.util.Objects;

/**
 * One ACL: operations a principal may perform on a resource, allowed from any host.
 *
 * @param resource   the kind of resource
 * @param name       its name, or the prefix when {@code prefixed}
 * @param prefixed   whether {@code name} is a prefix (Kafka's {@code PREFIXED} pattern type) rather than a literal
 * @param operations Kafka's operation names ({@code Read}, {@code Write}, {@code Describe}, ...), in a stable order
 * @param reason     why the role needs them
 */
public record Acl(Resource resource, String name, boolean prefixed, List<String> operations, String reason) {

    /** The resource types ttl-streams' roles need, with the names {@code kafka-acls} and Strimzi give them. */
    public enum Resource {
        TOPIC("--topic", "topic"),
        GROUP("--group", "group"),
        TRANSACTIONAL_ID("--transactional-id", "transactionalId");

        private final String cliOption;
        private final String strimziType;

        Resource(String cliOption, String strimziType) {
            this.cliOption = cliOption;
            this.strimziType = strimziType;
        }

        /** The {@code kafka-acls} option that names a resource of this type. */
        public String cliOption() {
            return cliOption;
        }

        /** The {@code KafkaUser} ACL's {@code resource.type}. */
        public String strimziType() {
            return strimziType;
        }
    }

    public Acl {
        Objects.requireNonNull(resource, "resource");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(reason, "reason");
        operations = List.copyOf(operations);
        if (operations.isEmpty()) {
            throw new IllegalArgumentException("An ACL on " + name + " needs at least one operation");
        }
    }
}
