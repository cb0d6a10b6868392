package io.ttlstreams.platform;

import java.util.Objects;
import java.util.Optional;

/**
 * What the rendered deployment cannot read from the processor's configuration: sizes, and the names and artifacts of
 * the Strimzi clusters it runs on.
 *
 * @param partitions        partitions of each source topic (and so of the control and delete topics)
 * @param replicationFactor every topic's replication factor
 * @param kafkaCluster      the Strimzi {@code Kafka} cluster's name ({@code strimzi.io/cluster} of topics and users)
 * @param connectCluster    the {@code KafkaConnect} cluster's name, also its {@code group.id} and the prefix of its
 *                          internal topics
 * @param connectImage      the image Strimzi builds for Connect, with the plugins ({@code build.output.image})
 * @param sinkGuardUrl      where the sink guard's plugin zip (module sink-guard, {@code mvn package}) is published
 * @param sinkGuardSha512   its SHA-512 ({@code target/ttl-streams-sink-guard-plugin.zip.sha512}), if known
 */
public record PlatformSettings(
        int partitions,
        int replicationFactor,
        String kafkaCluster,
        String connectCluster,
        String connectImage,
        String sinkGuardUrl,
        Optional<String> sinkGuardSha512) {

    /** The Connect cluster's name unless {@code --connect-cluster} says otherwise: its group and topic prefix. */
    public static final String DEFAULT_CONNECT_CLUSTER = "ttl-connect";

    public PlatformSettings {
        if (partitions < 1) {
            throw new IllegalArgumentException("--partitions must be at least 1, not " + partitions);
        }
        if (replicationFactor < 1 || replicationFactor > Short.MAX_VALUE) {
            throw new IllegalArgumentException(
                    "--replication-factor must be from 1 to 32767, not " + replicationFactor);
        }
        StrimziResources.checkName("--kafka-cluster", kafkaCluster);
        StrimziResources.checkName("--connect-cluster", connectCluster);
        Objects.requireNonNull(connectImage, "connectImage");
        Objects.requireNonNull(sinkGuardUrl, "sinkGuardUrl");
        Objects.requireNonNull(sinkGuardSha512, "sinkGuardSha512");
        sinkGuardSha512.ifPresent(sha -> {
            if (!sha.matches("[0-9a-f]{128}")) {
                throw new IllegalArgumentException("--sink-guard-sha512 must be 128 lowercase hex digits");
            }
        });
    }
}
