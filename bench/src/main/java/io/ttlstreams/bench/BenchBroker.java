package io.ttlstreams.bench;

import io.ttlstreams.config.OutputTopicOptions;
import io.ttlstreams.config.SourceOptions;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.connect.ConnectorConfigs;
import io.ttlstreams.embedded.EmbeddedKafka;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The one embedded KRaft broker ({@link EmbeddedKafka}, in this JVM) that every broker figure runs on, and what
 * they do with it: topics, producing a workload once, log sizes, committed offsets, and the ttl-streams
 * configuration of one run.
 *
 * <p>Every run names the topics it writes after its application id ({@code <app>.deletes}, {@code <app>.out},
 * Kafka Streams' {@code <app>-<store>-changelog}), so that the bytes a run made the broker store are the growth of
 * the topics under that prefix. Nothing is deleted before the broker is: deleting topics would have the broker
 * remove files in the background while the next run is measured.
 */
final class BenchBroker implements AutoCloseable {

    /** Partitions of every topic the benchmarks create, hence tasks per ttl-streams instance. */
    static final int PARTITIONS = 2;

    private static final int BROKER_ID = 1;
    private static final long ADMIN_TIMEOUT_S = 60;

    private final Path dir;
    private final EmbeddedKafka kafka;
    private final Admin admin;

    private BenchBroker(Path dir, EmbeddedKafka kafka, Admin admin) {
        this.dir = dir;
        this.kafka = kafka;
        this.admin = admin;
    }

    /** Starts a broker on a free port with its data in a fresh temporary directory. */
    static BenchBroker start() {
        Path dir = BenchSupport.tempStateDir("ttl-bench-broker");
        EmbeddedKafka kafka = EmbeddedKafka.start(dir, 0);
        Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()));
        return new BenchBroker(dir, kafka, admin);
    }

    String bootstrapServers() {
        return kafka.bootstrapServers();
    }

    /** Creates the topics with {@link #PARTITIONS} partitions each. */
    void createTopics(String... topics) {
        kafka.createTopics(PARTITIONS, topics);
    }

    /**
     * A ttl-streams configuration for one run: the bench rule, {@code sourceTopic} as its only source, every topic
     * it writes named after {@code applicationId}, and the state directory {@link #stateDir}; {@code extra} on top.
     * Its delete, dead-letter and control topics are created here, as the production launcher's provisioning would
     * (the control topic with as many partitions as the source).
     */
    TtlStreamsConfig ttlConfig(String applicationId, String sourceTopic, Map<String, String> extra) {
        Map<String, String> props = runProperties(applicationId, sourceTopic);
        props.put(OutputTopicOptions.DELETE_TOPIC_CONFIG, applicationId + ".deletes");
        props.put(OutputTopicOptions.DLQ_TOPIC_CONFIG, applicationId + ".dlq");
        props.put(OutputTopicOptions.CONTROL_TOPIC_CONFIG, applicationId + ".control");
        props.putAll(extra);
        TtlStreamsConfig config = BenchSupport.config(props);
        // The topology also counts the sink's dead letters, so its source topic must exist as in a deployment.
        createTopics(config.deleteTopic(), config.dlqTopic(), config.controlTopic(), ConnectorConfigs.SINK_DLQ_TOPIC);
        return config;
    }

    /**
     * The configuration of a pass-through run: the same Kafka Streams properties and source as {@link #ttlConfig};
     * its output topic, {@link #passThroughOutput}, is created here.
     */
    TtlStreamsConfig passThroughConfig(String applicationId, String sourceTopic) {
        createTopics(passThroughOutput(applicationId));
        return BenchSupport.config(runProperties(applicationId, sourceTopic));
    }

    /** The topic a pass-through run writes. */
    static String passThroughOutput(String applicationId) {
        return applicationId + ".out";
    }

    private Map<String, String> runProperties(String applicationId, String sourceTopic) {
        Map<String, String> props = new HashMap<>();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir(applicationId).toString());
        props.put(SourceOptions.SOURCE_TOPICS_CONFIG, sourceTopic);
        props.put(SourceOptions.SOURCE_TOPIC_NAMESPACE_MAP_CONFIG, sourceTopic + "=" + BenchSupport.NAMESPACE);
        return props;
    }

    /** The state directory of an application id's runs. */
    Path stateDir(String applicationId) {
        return dir.resolve("state").resolve(applicationId);
    }

    /** Produces {@code count} records, the i-th made by {@code record}, and waits until all are acknowledged. */
    void produce(int count, IntFunction<ProducerRecord<String, String>> record) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        props.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(512 * 1024));
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < count; i++) {
                producer.send(record.apply(i));
            }
            producer.flush();
        }
    }

    /** Bytes in the log segments of every topic, by topic (Admin.describeLogDirs of the one broker). */
    Map<String, Long> logBytesByTopic() {
        Map<String, Long> bytes = new HashMap<>();
        Map<String, LogDirDescription> dirs =
                get(admin.describeLogDirs(List.of(BROKER_ID)).allDescriptions()).get(BROKER_ID);
        for (LogDirDescription logDir : dirs.values()) {
            for (Map.Entry<TopicPartition, ReplicaInfo> replica :
                    logDir.replicaInfos().entrySet()) {
                bytes.merge(replica.getKey().topic(), replica.getValue().size(), Long::sum);
            }
        }
        return bytes;
    }

    /** The end offset of every partition of {@code topic}. */
    Map<TopicPartition, Long> endOffsets(String topic) {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            request.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        Map<TopicPartition, Long> ends = new HashMap<>();
        get(admin.listOffsets(request).all()).forEach((tp, info) -> ends.put(tp, info.offset()));
        return ends;
    }

    /** Whether consumer group {@code group} committed at least {@code ends} on every partition. */
    boolean committedAll(String group, Map<TopicPartition, Long> ends) {
        Map<TopicPartition, OffsetAndMetadata> committed;
        try {
            committed = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get(ADMIN_TIMEOUT_S, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            return false; // the group may not exist yet
        }
        return ends.entrySet().stream().allMatch(end -> {
            OffsetAndMetadata offset = committed.get(end.getKey());
            return offset != null && offset.offset() >= end.getValue();
        });
    }

    @Override
    public void close() {
        try {
            admin.close();
            kafka.close();
        } finally {
            BenchSupport.deleteRecursively(dir);
        }
    }

    private static <T> T get(org.apache.kafka.common.KafkaFuture<T> future) {
        try {
            return future.get(ADMIN_TIMEOUT_S, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("Admin request to the embedded broker failed", e);
        }
    }
}
