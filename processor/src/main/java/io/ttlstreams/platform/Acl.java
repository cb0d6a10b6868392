package io.ttlstreams.platform;

import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.resource.ResourceType;

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
        TOPIC("--topic", "topic", ResourceType.TOPIC),
        GROUP("--group", "group", ResourceType.GROUP),
        TRANSACTIONAL_ID("--transactional-id", "transactionalId", ResourceType.TRANSACTIONAL_ID);

        private final String cliOption;
        private final String strimziType;
        private final ResourceType kafkaType;

        Resource(String cliOption, String strimziType, ResourceType kafkaType) {
            this.cliOption = cliOption;
            this.strimziType = strimziType;
            this.kafkaType = kafkaType;
        }

        /** Kafka's resource type. */
        public ResourceType kafkaType() {
            return kafkaType;
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
        // Least privilege: every ACL names its resource and its operations.
        if (name.isEmpty() || name.equals("*") || operations.contains("All")) {
            throw new IllegalArgumentException(
                    "An ACL names its resource and operations, not '" + name + "' with " + operations);
        }
    }
}
