package io.ttlstreams.platform;

import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * One topic ttl-streams reads or writes, as a platform team declares it.
 *
 * @param name              the topic's name
 * @param role              what it is for
 * @param partitions        the partitions rendered
 * @param partitionsCheck   how the processor compares a declared topic's partition count with {@code partitions}
 * @param partitionsReason  why this many
 * @param replicationFactor the replication factor, empty for the broker's default
 * @param settings          the topic-level settings, in a stable order
 */
public record TopicSpec(
        String name,
        Role role,
        int partitions,
        TopicSetting.Check partitionsCheck,
        String partitionsReason,
        OptionalInt replicationFactor,
        List<TopicSetting> settings) {

    /** What a topic is for, and so who writes and reads it (see {@link AclPlan}). */
    public enum Role {
        SOURCE("change events of a rule's namespace, written by its source connector"),
        HEARTBEAT("the source connector's heartbeats, whose timestamps tell that its change stream is alive"),
        CONTROL("namespace-wide events (drop, rename, invalidate) for every task"),
        DELETES("the delete commands the sink connector applies"),
        DEAD_LETTERS("change events and records the processor could not process"),
        SINK_DEAD_LETTERS("delete commands the sink guard refused or MongoDB rejected"),
        AUDIT("one audit event per expiry"),
        EXPIRED("one expired record per confirmed expiry, for consumers that archive or react to expired data");

        private final String purpose;

        Role(String purpose) {
            this.purpose = purpose;
        }

        /** One line on what the topic carries. */
        public String purpose() {
            return purpose;
        }

        /** Whether the processor itself reads or writes topics of this role, so that it checks them at start-up. */
        public boolean usedByProcessor() {
            return this != HEARTBEAT;
        }
    }

    public TopicSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(partitionsCheck, "partitionsCheck");
        Objects.requireNonNull(partitionsReason, "partitionsReason");
        Objects.requireNonNull(replicationFactor, "replicationFactor");
        settings = List.copyOf(settings);
        if (partitions < 1) {
            throw new IllegalArgumentException("Topic " + name + " needs at least one partition");
        }
    }

    /** Whether a declared topic with {@code actual} partitions meets this one. */
    public boolean acceptsPartitions(int actual) {
        return switch (partitionsCheck) {
            case ADVISORY -> true;
            case EQUAL -> actual == partitions;
            case AT_LEAST -> actual >= partitions;
        };
    }

    /** The partitions {@link #acceptsPartitions} asks for, as a message names them. */
    public String expectedPartitions() {
        return partitionsCheck == TopicSetting.Check.AT_LEAST ? "at least " + partitions : Integer.toString(partitions);
    }
}
