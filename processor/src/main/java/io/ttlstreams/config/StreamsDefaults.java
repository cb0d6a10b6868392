package io.ttlstreams.config;

import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.GroupProtocol;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The Kafka Streams settings ttl-streams starts from, which the configuration's own (every key outside {@code ttl.}
 * and {@code embedded.}) override:
 *
 * <ul>
 *   <li>{@code application.id=ttl-streams};</li>
 *   <li>{@code processing.guarantee=exactly_once_v2}: deletes and schedule updates commit together;</li>
 *   <li>{@code max.task.idle.ms=-1}: every task also reads the control topic, which is nearly always empty, and
 *       waiting on it would only delay change events; their order against namespace drops is settled by
 *       clusterTime (see the namespace-epochs store), not by arrival;</li>
 *   <li>{@code session.timeout.ms=10000} (Kafka's: 45 s): an instance that dies without leaving the group holds its
 *       partitions until the session times out, and every document due meanwhile is late by that much;</li>
 *   <li>{@code heartbeat.interval.ms=500} (Kafka's: 3 s): a member learns that the group is rebalancing from its
 *       next heartbeat (or its next commit or poll that meets the coordinator), so each rebalance may wait up to
 *       this interval per member before it can complete, and a rolling restart costs at least two per instance
 *       (the leave, then the return, each with a cooperative follow-up when a task changes owner); deadlines of
 *       the moving tasks wait for all of them. Two heartbeats a second per stream thread are nothing to a broker,
 *       and the session timeout stays twenty heartbeats long, well above Kafka's advice of three. Measured in
 *       {@code bench chaos} (bench/README.md, rolling restarts);</li>
 *   <li>{@code restore.consumer.fetch.max.wait.ms=100} (Kafka's: 500): the restore consumer keeps the standbys
 *       up to date with long polls, and a standby promoted in a takeover is restored by the same consumer, whose
 *       first fetch for it waits for the long poll in flight to return; its deadlines wait as long;</li>
 *   <li>{@code enable.metrics.push=false} (Kafka's: true): with it, every metric a client registers is also
 *       named and recorded for client telemetry (KIP-714), which only brokers with a telemetry plugin ask for;
 *       a task's stores register some hundreds of metrics when it starts, and in a takeover the stream thread
 *       does that for every new standby before it runs the promoted tasks (profiled in bench/README.md, rolling
 *       restarts). Set it to true where the brokers collect client metrics;</li>
 *   <li>{@code num.standby.replicas=1}: another instance keeps a warm copy of each task's stores, so that a
 *       takeover does not first replay the changelogs (no effect with a single instance); not under the streams
 *       rebalance protocol ({@code group.protocol=streams}), whose groups take their standbys from the brokers
 *       ({@code streams.num.standby.replicas}) and where Kafka Streams ignores the setting with a warning;</li>
 *   <li>{@code batch.size=262144} (Kafka's: 16 KiB): a mass expiry sends a delete command and its changelog
 *       records per due document, tens of thousands per punctuation, and the commit waits until the producer has
 *       sent them all; with 16 KiB batches a produce request carries at most 16 KiB per partition, so the broker
 *       and the producer pay their per-batch and per-request work for every hundred records or so. Measured in the
 *       bench's mass expiry (bench/README.md): JVM CPU per command, broker included, about a third lower, the
 *       drain no slower. A batch is allocated at this size per partition the producer writes to at once, from
 *       {@code buffer.memory} (32 MiB): an instance whose stream thread writes to more than about a hundred
 *       partitions at once should lower it or raise {@code buffer.memory}.</li>
 * </ul>
 *
 * {@code bootstrap.servers} has no default: pointing at a broker by accident is worse than failing.
 */
public final class StreamsDefaults {

    /** Kafka Streams' {@code application.id} unless the configuration sets one. */
    public static final String DEFAULT_APPLICATION_ID = "ttl-streams";
    /** The consumer's {@code session.timeout.ms} unless the configuration sets one. */
    public static final int DEFAULT_SESSION_TIMEOUT_MS = 10_000;
    /** The consumer's {@code heartbeat.interval.ms} unless the configuration sets one. */
    public static final int DEFAULT_HEARTBEAT_INTERVAL_MS = 500;
    /** The restore consumer's {@code fetch.max.wait.ms} unless the configuration sets one, prefixed or not. */
    public static final int DEFAULT_RESTORE_FETCH_MAX_WAIT_MS = 100;
    /**
     * Standby replicas of each task unless the configuration sets {@code num.standby.replicas}; under the streams
     * rebalance protocol, what the group's {@code streams.num.standby.replicas} should be.
     */
    public static final int DEFAULT_NUM_STANDBY_REPLICAS = 1;
    /** The producer's {@code batch.size} in bytes unless the configuration sets one. */
    public static final int DEFAULT_PRODUCER_BATCH_SIZE_BYTES = 256 * 1024;

    private StreamsDefaults() {}

    /**
     * Whether {@code settings} ask for the streams rebalance protocol (KIP-1071, {@code group.protocol=streams}, in
     * any case), in which the brokers' group coordinator assigns the tasks, rather than the classic one.
     */
    static boolean streamsProtocol(Map<?, ?> settings) {
        Object protocol = settings.get(StreamsConfig.GROUP_PROTOCOL_CONFIG);
        return protocol != null
                && GroupProtocol.STREAMS
                        .name()
                        .equalsIgnoreCase(String.valueOf(protocol).trim());
    }

    /** The defaults with the Kafka Streams settings among {@code originals} over them; a fresh copy. */
    static Properties over(Map<String, Object> originals) {
        Properties properties = new Properties();
        properties.put(StreamsConfig.APPLICATION_ID_CONFIG, DEFAULT_APPLICATION_ID);
        properties.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        properties.put(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG, Long.toString(StreamsConfig.MAX_TASK_IDLE_MS_DISABLED));
        // Unprefixed, so that a user's session.timeout.ms, consumer.session.timeout.ms or
        // main.consumer.session.timeout.ms wins, as Kafka Streams lets the more specific setting win.
        properties.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, Integer.toString(DEFAULT_SESSION_TIMEOUT_MS));
        properties.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, Integer.toString(DEFAULT_HEARTBEAT_INTERVAL_MS));
        // Prefixed, so that it reaches the restore consumer alone; a user's fetch.max.wait.ms, however prefixed, wins
        // (below).
        properties.put(
                StreamsConfig.restoreConsumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG),
                Integer.toString(DEFAULT_RESTORE_FETCH_MAX_WAIT_MS));
        properties.put(CommonClientConfigs.ENABLE_METRICS_PUSH_CONFIG, "false");
        if (!streamsProtocol(originals)) {
            properties.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, Integer.toString(DEFAULT_NUM_STANDBY_REPLICAS));
        }
        // Unprefixed too: producer.batch.size wins over it in Kafka Streams.
        properties.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(DEFAULT_PRODUCER_BATCH_SIZE_BYTES));
        originals.forEach((key, value) -> {
            if (!UnknownKeys.isOwn(key) && value != null) {
                properties.put(key, value);
            }
        });
        String restoreWait = StreamsConfig.restoreConsumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG);
        if (!originals.containsKey(restoreWait)
                && (originals.containsKey(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG)
                        || originals.containsKey(
                                StreamsConfig.consumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG)))) {
            // Kafka Streams lets the restore consumer's key win over these; the user's setting is meant for it too.
            properties.remove(restoreWait);
        }
        return properties;
    }
}
