package io.ttlstreams.embedded;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads every partition of one topic from the start, without a consumer group, and keeps every record seen, so a
 * test can wait for the records it caused and ignore the ones other tests caused.
 *
 * <p>It is also the barrier for proving that something did <em>not</em> happen: cause a later marker record that
 * travels the same path, wait for it with {@link #readUntil}, and only then look for the record that must be
 * absent. On one partition everything written before the marker is read before it, so a missing record is really
 * missing, not merely late.
 */
public final class TopicReader implements AutoCloseable {

    private final String topic;
    private final KafkaConsumer<String, String> consumer;
    private final List<ConsumerRecord<String, String>> seen = new ArrayList<>();

    public TopicReader(String bootstrapServers, String topic) {
        this(bootstrapServers, topic, new StringDeserializer());
    }

    /**
     * A reader of a topic whose values are not text (the audit topic's Avro records, say): {@code values} renders each
     * as a string to match on.
     */
    public TopicReader(String bootstrapServers, String topic, Deserializer<String> values) {
        this(clientOf(bootstrapServers), topic, values);
    }

    /**
     * A reader with the client settings {@code client}: {@code bootstrap.servers} and, on a broker that enforces
     * security, the settings that log in as a user allowed to read the topic.
     */
    public TopicReader(Properties client, String topic) {
        this(client, topic, new StringDeserializer());
    }

    private TopicReader(Properties client, String topic, Deserializer<String> values) {
        this.topic = topic;
        Properties props = new Properties();
        props.putAll(client);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        consumer = new KafkaConsumer<>(props, new StringDeserializer(), values);
        List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                .map(info -> new TopicPartition(topic, info.partition()))
                .toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
    }

    private static Properties clientOf(String bootstrapServers) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        return props;
    }

    /** Polls once briefly and returns the records seen so far that match. */
    public List<ConsumerRecord<String, String>> poll(Predicate<ConsumerRecord<String, String>> filter) {
        consumer.poll(Duration.ofMillis(5)).forEach(seen::add);
        return seen.stream().filter(filter).toList();
    }

    /**
     * The barrier: waits until the first record matching {@code marker} has been read and returns every record
     * before it, from the start of the topic.
     *
     * @param markerName what the marker is, for the failure message (e.g. "the command for unset-barrier")
     * @param atMost how long to wait for the marker
     * @throws IllegalStateException if the topic has more than one partition: records on another partition are not
     *     ordered before the marker, so the barrier would prove nothing
     */
    public List<ConsumerRecord<String, String>> readUntil(
            String markerName, Predicate<ConsumerRecord<String, String>> marker, Duration atMost) {
        List<PartitionInfo> partitions = consumer.partitionsFor(topic);
        if (partitions.size() != 1) {
            throw new IllegalStateException("A barrier needs a single-partition topic, but " + topic + " has "
                    + partitions.size() + " partitions");
        }
        long markerOffset = await(markerName)
                .atMost(atMost)
                .until(() -> poll(marker), found -> !found.isEmpty())
                .get(0)
                .offset();
        return seen.stream().filter(r -> r.offset() < markerOffset).toList();
    }

    /**
     * The barrier of a topic of several partitions: reads until this reader's position reaches the end every
     * partition has now (for a read_committed reader, the last stable offset: everything committed so far) and
     * returns every record seen. Called after a marker record was seen, it proves that whatever was committed before
     * the marker's transaction has been read too.
     *
     * @param atMost how long to keep reading
     */
    public List<ConsumerRecord<String, String>> readToEnd(Duration atMost) {
        Map<TopicPartition, Long> ends = consumer.endOffsets(consumer.assignment());
        await("the end of " + topic).atMost(atMost).until(() -> {
            poll(r -> false);
            return ends.entrySet().stream().allMatch(end -> consumer.position(end.getKey()) >= end.getValue());
        });
        return List.copyOf(seen);
    }

    @Override
    public void close() {
        consumer.close(Duration.ofSeconds(5));
    }
}
