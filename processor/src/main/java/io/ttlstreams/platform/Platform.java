package io.ttlstreams.platform;

import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.connect.ConnectorConfigs;
import java.util.Objects;
import java.util.OptionalInt;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The deployment of one processor configuration: its topics, its principals and their ACLs, and its connectors, as
 * {@code ttl-streams platform} renders them ({@link StrimziResources}, {@link KafkaCliScript}, {@link PlatformJson}).
 *
 * @param config     the processor's configuration
 * @param settings   what the configuration does not say (sizes, cluster names, artifacts)
 * @param topics     every topic it reads or writes
 * @param acls       one principal per role
 * @param connectors the source and sink connectors, as {@code connect-config} renders them
 */
public record Platform(
        TtlStreamsConfig config,
        PlatformSettings settings,
        TopicPlan topics,
        AclPlan acls,
        ConnectorConfigs connectors) {

    public Platform {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(topics, "topics");
        Objects.requireNonNull(acls, "acls");
        Objects.requireNonNull(connectors, "connectors");
    }

    /**
     * Renders the deployment of {@code config}.
     *
     * @param mongodbUri the connectors' {@code connection.uri}, usually a config-provider reference
     */
    public static Platform of(TtlStreamsConfig config, PlatformSettings settings, String mongodbUri) {
        TopicPlan topics = TopicPlan.of(config, settings.partitions(), OptionalInt.of(settings.replicationFactor()));
        AclPlan acls = AclPlan.of(config, topics, settings.connectCluster());
        return new Platform(config, settings, topics, acls, ConnectorConfigs.render(config, mongodbUri, false));
    }

    /** Kafka Streams' {@code application.id}: the processor's group and the prefix of what it owns. */
    public static String applicationId(TtlStreamsConfig config) {
        return config.streamsProperties().getProperty(StreamsConfig.APPLICATION_ID_CONFIG);
    }
}
