package io.ttlstreams.platform;

import io.ttlstreams.config.SourceOptions;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.connect.ConnectorConfigs;
import io.ttlstreams.connect.ConnectorDefinition;
import io.ttlstreams.platform.TopicSetting.Check;
import io.ttlstreams.platform.TopicSpec.Role;
import io.ttlstreams.processor.DeadLetters;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.streams.StreamsConfig;

/**
 * Every topic ttl-streams reads or writes, with the partitions and settings it depends on and the reason for each: what
 * {@code platform} renders for a platform team to declare, what the processor creates when it may
 * ({@code ttl.topics.create=true}), and what it checks declared topics against when it may not.
 *
 * <p>Kafka Streams' own internal topics (changelogs, {@code <application.id>-*}) are not listed: Kafka Streams creates
 * and checks them itself, under the processor's prefixed ACL ({@link AclPlan}).
 */
public final class TopicPlan {

    /** How long delete commands, source events and dead letters are kept unless a reason asks for longer. */
    static final Duration WEEK = Duration.ofDays(7);

    /** How long the dead-letter topics keep what operators inspect and replay. */
    static final Duration DEAD_LETTER_RETENTION = Duration.ofDays(30);

    /** The sink guard's default {@code command.max.age.ms}: a command older than this is refused anyway. */
    static final Duration GUARD_COMMAND_MAX_AGE = Duration.ofHours(2);

    /** How long heartbeat topics keep records: only the newest heartbeat's timestamp is read. */
    static final Duration HEARTBEAT_RETENTION = Duration.ofDays(1);

    private final List<TopicSpec> topics;

    private TopicPlan(List<TopicSpec> topics) {
        this.topics = List.copyOf(topics);
    }

    /**
     * The plan for {@code config}.
     *
     * @param sourcePartitions  the partitions of the largest source topic, which the control topic must match; also
     *                          rendered for the source and delete topics
     * @param replicationFactor every topic's replication factor; empty for the broker's default, and then no
     *                          {@code min.insync.replicas} is asked for either
     */
    public static TopicPlan of(TtlStreamsConfig config, int sourcePartitions, OptionalInt replicationFactor) {
        if (sourcePartitions < 1) {
            throw new IllegalArgumentException(
                    "The source topics need at least one partition, not " + sourcePartitions);
        }
        replicationFactor.ifPresent(factor -> {
            if (factor < 1 || factor > Short.MAX_VALUE) {
                throw new IllegalArgumentException(
                        "A replication factor is from 1 to " + Short.MAX_VALUE + ", not " + factor);
            }
        });
        Topics topics = new Topics(replicationFactor);
        long sourceRetention =
                Math.max(WEEK.toMillis(), config.eventTimeMaxLag().toMillis());
        List<ConnectorDefinition> connectors = ConnectorConfigs.render(
                        config, ConnectorConfigs.DEFAULT_MONGODB_URI, false)
                .sources();
        OptionalInt sourceRecordLimit = sourceRecordLimit(connectors);
        for (String source : config.sourceTopics()) {
            List<TopicSetting> sourceSettings = new ArrayList<>(List.of(
                    new TopicSetting(
                            TopicConfig.CLEANUP_POLICY_CONFIG,
                            TopicConfig.CLEANUP_POLICY_DELETE,
                            Check.ADVISORY,
                            "every change event is read in order; compaction would drop events a restarting"
                                    + " processor has not read yet"),
                    new TopicSetting(
                            TopicConfig.RETENTION_MS_CONFIG,
                            Long.toString(sourceRetention),
                            Check.ADVISORY,
                            "a processor down (or reset) for up to this long resumes from its committed offsets"
                                    + " without a gap; at least " + SourceOptions.EVENT_TIME_MAX_LAG_MS_CONFIG
                                    + ", past which events are dead-lettered as implausible anyway")));
            sourceRecordLimit.ifPresent(limit -> sourceSettings.add(new TopicSetting(
                    TopicConfig.MAX_MESSAGE_BYTES_CONFIG,
                    Integer.toString(limit),
                    Check.ADVISORY,
                    "the largest change event the rendered pipeline can produce, its pre-image bounded (the source"
                            + " connector's " + ConnectorConfigs.SOURCE_MAX_REQUEST_SIZE + "); a larger event"
                            + " the topic refuses is skipped by Connect, and its document not scheduled")));
            topics.add(
                    source,
                    Role.SOURCE,
                    sourcePartitions,
                    Check.ADVISORY,
                    "the processor's parallelism: one task per partition, so at most this many instances share the"
                            + " work",
                    sourceSettings.toArray(TopicSetting[]::new));
        }
        for (String heartbeat : heartbeatTopics(connectors)) {
            topics.add(
                    heartbeat,
                    Role.HEARTBEAT,
                    1,
                    Check.ADVISORY,
                    "one source connector writes it, and only its newest timestamp is read",
                    new TopicSetting(
                            TopicConfig.RETENTION_MS_CONFIG,
                            Long.toString(HEARTBEAT_RETENTION.toMillis()),
                            Check.ADVISORY,
                            "only the newest heartbeat is read (a heartbeat every "
                                    + ConnectorConfigs.HEARTBEAT_INTERVAL_MS / 1000 + " s)"));
        }
        topics.add(
                config.controlTopic(),
                Role.CONTROL,
                sourcePartitions,
                Check.AT_LEAST,
                "every task reads its own partition of it: as many as the largest source topic, which Kafka Streams"
                        + " co-partitions with it into one task per partition",
                notCompacted("a namespace drop must reach every task, however many drops share its key"));
        topics.add(
                config.deleteTopic(),
                Role.DELETES,
                sourcePartitions,
                Check.ADVISORY,
                "the sink connector's tasks share its partitions",
                notCompacted("the sink must read every command; compaction keeps only the newest per document key,"
                        + " and keeps it for good, a command anyone reading the topic could replay"),
                new TopicSetting(
                        TopicConfig.RETENTION_MS_CONFIG,
                        Long.toString(WEEK.toMillis()),
                        Check.AT_LEAST,
                        "commands must outlive a sink outage: kept at least as long as the sink guard's"
                                + " command.max.age.ms (" + GUARD_COMMAND_MAX_AGE.toHours()
                                + " h, checked) and a week rendered, so that an outage leaves them to inspect",
                        Long.toString(GUARD_COMMAND_MAX_AGE.toMillis())));
        int deadLetterLimit = DeadLetters.producerLimit(config.streamsProperties());
        topics.add(
                config.dlqTopic(),
                Role.DEAD_LETTERS,
                1,
                Check.ADVISORY,
                "dead letters are rare and read by operators",
                notCompacted("every dead letter is kept for an operator to inspect"),
                new TopicSetting(
                        TopicConfig.MAX_MESSAGE_BYTES_CONFIG,
                        Integer.toString(deadLetterLimit),
                        Check.AT_LEAST,
                        "a dead letter is at most the producer's " + ProducerConfig.MAX_REQUEST_SIZE_CONFIG + " ("
                                + StreamsConfig.producerPrefix(ProducerConfig.MAX_REQUEST_SIZE_CONFIG)
                                + "), and one the topic cannot take would stop its task"),
                new TopicSetting(
                        TopicConfig.RETENTION_MS_CONFIG,
                        Long.toString(DEAD_LETTER_RETENTION.toMillis()),
                        Check.ADVISORY,
                        "operators inspect and replay dead letters"));
        topics.add(
                ConnectorConfigs.SINK_DLQ_TOPIC,
                Role.SINK_DEAD_LETTERS,
                1,
                Check.ADVISORY,
                "empty in normal operation: alert on any record",
                new TopicSetting(
                        TopicConfig.RETENTION_MS_CONFIG,
                        Long.toString(DEAD_LETTER_RETENTION.toMillis()),
                        Check.ADVISORY,
                        "operators inspect refused commands and may send them back to the delete topic"));
        Optional<String> audit = config.auditTopic();
        audit.ifPresent(name -> topics.add(
                name, Role.AUDIT, sourcePartitions, Check.ADVISORY, "one audit event per delete, by document key"));
        config.expiryEvents()
                .topic()
                .ifPresent(name -> topics.add(
                        name,
                        Role.EXPIRED,
                        sourcePartitions,
                        Check.ADVISORY,
                        "one expired record per confirmed expiry, by namespace and document key"));
        return new TopicPlan(topics.specs);
    }

    /**
     * The largest producer limit of the rendered source connectors ({@link ConnectorConfigs#SOURCE_MAX_REQUEST_SIZE}),
     * which every source topic takes; empty where no connector renders one (a service whose pipeline cannot bound
     * its events).
     */
    private static OptionalInt sourceRecordLimit(List<ConnectorDefinition> sources) {
        return sources.stream()
                .map(source -> source.config().get(ConnectorConfigs.SOURCE_MAX_REQUEST_SIZE))
                .filter(Objects::nonNull)
                .mapToInt(Integer::parseInt)
                .max();
    }

    /** The heartbeat topics of the rendered source connectors, each once, in connector order. */
    private static Set<String> heartbeatTopics(List<ConnectorDefinition> sources) {
        return sources.stream()
                .map(source -> source.config().get("heartbeat.topic.name"))
                .filter(topic -> topic != null && !topic.isBlank())
                .collect(Collectors.toCollection(LinkedHashSet::new));
    }

    /**
     * The {@code min.insync.replicas} the plan asks of a topic with {@code replicationFactor} replicas: 2 from three
     * replicas on (a write survives the loss of a broker, and writes go on while one replica is down), one less than
     * the replicas below that, 1 for a single replica. Also what the embedded multi-broker cluster gives its internal
     * topics and Kafka Streams' internal topics, so that they are tried as production runs them.
     */
    public static int minInSyncReplicas(int replicationFactor) {
        if (replicationFactor < 1) {
            throw new IllegalArgumentException("A replication factor is at least 1, not " + replicationFactor);
        }
        return Math.max(1, Math.min(2, replicationFactor - 1));
    }

    /** Every topic, sources first, in a stable order. */
    public List<TopicSpec> topics() {
        return topics;
    }

    /** The topics of {@code role}, in plan order. */
    public List<TopicSpec> topics(Role role) {
        return topics.stream().filter(topic -> topic.role() == role).toList();
    }

    private static TopicSetting notCompacted(String reason) {
        return new TopicSetting(
                TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE, Check.EQUAL, reason);
    }

    /** Collects the specs, adding the replication settings every topic shares. */
    private static final class Topics {

        private final OptionalInt replicationFactor;
        private final List<TopicSpec> specs = new ArrayList<>();

        Topics(OptionalInt replicationFactor) {
            this.replicationFactor = replicationFactor;
        }

        void add(
                String name,
                Role role,
                int partitions,
                Check partitionsCheck,
                String partitionsReason,
                TopicSetting... settings) {
            List<TopicSetting> all = new ArrayList<>(List.of(settings));
            replicationFactor.ifPresent(factor -> {
                if (factor > 1) {
                    all.add(new TopicSetting(
                            TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG,
                            Integer.toString(minInSyncReplicas(factor)),
                            Check.ADVISORY,
                            "with acks=all (the producers' default) a write survives the loss of a broker, and"
                                    + " writes go on while one replica is down"));
                }
            });
            specs.add(new TopicSpec(name, role, partitions, partitionsCheck, partitionsReason, replicationFactor, all));
        }
    }
}
