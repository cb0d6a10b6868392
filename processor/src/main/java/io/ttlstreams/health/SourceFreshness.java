package io.ttlstreams.health;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.connect.ConnectorConfigs;
import io.ttlstreams.contract.Namespace;
import java.time.Clock;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How long ago each watched namespace's source last showed life: the newest record timestamp of its change-event
 * topic or of its source connector's heartbeat topic ({@link ConnectorConfigs#heartbeatTopic}), whichever is later,
 * read with the admin API's {@code maxTimestamp} offsets (no consumer, nothing read). Exported as {@code
 * ttl_source_staleness_seconds}: on a replica set the heartbeats keep it near the heartbeat interval even when nothing
 * changes, so a value well above it means a change stream that stopped, whatever the connector's status says.
 *
 * <p>A record timestamp is what its producer claims. One stamped ahead of this observer's clock would stay the
 * partition's newest for as long as it is ahead and report the source fresh all that time, dead or not; so a
 * timestamp counts for no later than the check that first saw its partition grow, and a partition whose log end
 * offset did not move since the last check shows no new life, whatever its newest timestamp says.
 */
public final class SourceFreshness {

    private static final Logger LOG = LoggerFactory.getLogger(SourceFreshness.class);

    static final String STALENESS_GAUGE = "ttl.source.staleness";

    private final Admin admin;
    private final Clock clock;
    private final Map<Namespace, Set<String>> topicsByNamespace;
    private final Map<Namespace, Long> lastSeenMillis = new ConcurrentHashMap<>();
    /** Each partition's log end offset at the last check; checks run one at a time. */
    private final Map<TopicPartition, Long> endOffsets = new HashMap<>();

    public SourceFreshness(TtlStreamsConfig config, Admin admin, MeterRegistry registry, Clock clock) {
        this.admin = admin;
        this.clock = clock;
        this.topicsByNamespace = topicsByNamespace(config);
        for (Namespace namespace : topicsByNamespace.keySet()) {
            Gauge.builder(STALENESS_GAUGE, () -> staleness(namespace).orElse(Double.NaN))
                    .description("Seconds since the namespace's change-event topic or its source connector's"
                            + " heartbeat topic last received a record; NaN before any")
                    .baseUnit("seconds")
                    .tag("namespace", namespace.toString())
                    .register(registry);
        }
    }

    /** Each source topic's namespace, with the topic and the heartbeat topic of its database. */
    static Map<Namespace, Set<String>> topicsByNamespace(TtlStreamsConfig config) {
        Map<Namespace, Set<String>> topics = new LinkedHashMap<>();
        for (String topic : config.sourceTopics()) {
            config.topicNamespaceMapping().namespaceOf(topic).ifPresent(namespace -> {
                Set<String> own = topics.computeIfAbsent(namespace, n -> new LinkedHashSet<>());
                own.add(topic);
                own.add(ConnectorConfigs.heartbeatTopic(config.sourceProfile(), namespace));
            });
        }
        return topics;
    }

    /** Reads the newest record timestamp and log end offset of every topic's partitions once. */
    public void check() throws InterruptedException {
        Set<String> allTopics = new LinkedHashSet<>();
        topicsByNamespace.values().forEach(allTopics::addAll);
        observe(partitionStates(allTopics));
    }

    /** What a check read of one partition: its newest record timestamp (negative when none) and log end offset. */
    record PartitionState(long maxTimestamp, long endOffset) {}

    /** Takes in what one check read, at the clock's current time. */
    void observe(Map<TopicPartition, PartitionState> partitions) {
        long now = clock.millis();
        Map<String, Long> newest = new HashMap<>();
        partitions.forEach((partition, state) -> {
            Long previousEnd = endOffsets.put(partition, state.endOffset());
            boolean grew = previousEnd == null || previousEnd != state.endOffset();
            if (grew && state.maxTimestamp() >= 0) {
                newest.merge(partition.topic(), Math.min(state.maxTimestamp(), now), Math::max);
            }
        });
        topicsByNamespace.forEach((namespace, topics) -> topics.stream()
                .map(newest::get)
                .filter(timestamp -> timestamp != null)
                .max(Long::compare)
                .ifPresent(timestamp -> lastSeenMillis.merge(namespace, timestamp, Math::max)));
    }

    /** Seconds since the namespace's source last showed life, by the wall clock; empty before any record. */
    public OptionalDouble staleness(Namespace namespace) {
        Long seen = lastSeenMillis.get(namespace);
        return seen == null ? OptionalDouble.empty() : OptionalDouble.of(Math.max(0, clock.millis() - seen) / 1000.0);
    }

    /** The watched namespaces, in source topic order. */
    public Set<Namespace> namespaces() {
        return topicsByNamespace.keySet();
    }

    private Map<TopicPartition, PartitionState> partitionStates(Set<String> topics) throws InterruptedException {
        Map<TopicPartition, OffsetSpec> partitions = new HashMap<>();
        admin.describeTopics(topics).topicNameValues().forEach((topic, description) -> {
            try {
                for (var partition : description.get().partitions()) {
                    partitions.put(new TopicPartition(topic, partition.partition()), OffsetSpec.maxTimestamp());
                }
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    LOG.warn(
                            "Cannot describe topic {} to read its freshness: {}",
                            topic,
                            e.getCause().toString());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        if (Thread.currentThread().isInterrupted()) {
            throw new InterruptedException();
        }
        Map<TopicPartition, PartitionState> states = new HashMap<>();
        if (partitions.isEmpty()) {
            return states;
        }
        Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
        partitions.keySet().forEach(partition -> ends.put(partition, OffsetSpec.latest()));
        try {
            Map<TopicPartition, ListOffsetsResultInfo> newest =
                    admin.listOffsets(partitions).all().get();
            Map<TopicPartition, ListOffsetsResultInfo> latest =
                    admin.listOffsets(ends).all().get();
            newest.forEach((partition, info) -> {
                ListOffsetsResultInfo end = latest.get(partition);
                if (end != null) {
                    states.put(partition, new PartitionState(info.timestamp(), end.offset()));
                }
            });
        } catch (ExecutionException e) {
            LOG.warn(
                    "Cannot read the newest timestamps of the source topics: {}",
                    e.getCause().toString());
        }
        return states;
    }
}
