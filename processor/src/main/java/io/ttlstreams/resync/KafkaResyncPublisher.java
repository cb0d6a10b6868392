package io.ttlstreams.resync;

import io.ttlstreams.config.TtlStreamsConfig;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;

/**
 * Publishes resync events with a plain, idempotent producer ({@code acks=all}), so that a retried send neither
 * duplicates nor reorders the events of a partition. Not transactional: a resync event is a hint the processor
 * checks against what it knows, and one published twice is ignored the second time.
 */
public final class KafkaResyncPublisher implements ResyncSink {

    private final Producer<String, String> producer;
    private final AtomicReference<Exception> failure = new AtomicReference<>();

    /** @param producer the producer to publish with; closed with this publisher */
    public KafkaResyncPublisher(Producer<String, String> producer) {
        this.producer = Objects.requireNonNull(producer, "producer");
    }

    /** A publisher to the processor's Kafka cluster, with the client settings of its configuration. */
    public static KafkaResyncPublisher create(TtlStreamsConfig config) {
        return new KafkaResyncPublisher(
                new KafkaProducer<>(producerProperties(config), new StringSerializer(), new StringSerializer()));
    }

    /**
     * The producer settings: those of the processor's Kafka Streams settings a producer knows (bootstrap.servers,
     * security), then its {@code producer.}-prefixed overrides, then idempotence, which is not negotiable.
     */
    public static Properties producerProperties(TtlStreamsConfig config) {
        Properties streams = config.streamsProperties();
        Map<String, Object> props = new HashMap<>();
        streams.forEach((key, value) -> {
            if (ProducerConfig.configNames().contains(key.toString())) {
                props.put(key.toString(), value);
            }
        });
        streams.forEach((key, value) -> {
            if (key.toString().startsWith(StreamsConfig.PRODUCER_PREFIX)) {
                props.put(key.toString().substring(StreamsConfig.PRODUCER_PREFIX.length()), value);
            }
        });
        props.remove(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
        props.put(
                ProducerConfig.CLIENT_ID_CONFIG, streams.getProperty(StreamsConfig.APPLICATION_ID_CONFIG) + "-resync");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        Properties properties = new Properties();
        properties.putAll(props);
        return properties;
    }

    @Override
    public void publish(ResyncEvent event) {
        producer.send(new ProducerRecord<>(event.topic(), event.key(), event.value()), (metadata, error) -> {
            if (error != null) {
                failure.compareAndSet(null, error);
            }
        });
    }

    @Override
    public void flush() {
        producer.flush();
        Exception error = failure.get();
        if (error != null) {
            throw new KafkaException("Could not publish resync events: " + error.getMessage(), error);
        }
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(30));
    }
}
