package io.ttlstreams.resync;

import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.platform.AccessDenied;
import io.ttlstreams.platform.Acl;
import io.ttlstreams.platform.AclPlan;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
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
    /** Says why a send to a topic failed: Kafka's message, or which ACL a refusal lacks. */
    private final BiFunction<Exception, String, String> explain;

    private final AtomicReference<Exception> failure = new AtomicReference<>();
    private final AtomicReference<String> failedTopic = new AtomicReference<>();

    /** @param producer the producer to publish with; closed with this publisher */
    public KafkaResyncPublisher(Producer<String, String> producer) {
        this(producer, (error, topic) -> error.getMessage());
    }

    private KafkaResyncPublisher(Producer<String, String> producer, BiFunction<Exception, String, String> explain) {
        this.producer = Objects.requireNonNull(producer, "producer");
        this.explain = explain;
    }

    /**
     * A publisher to the processor's Kafka cluster, with the client settings of its configuration: as the processor's
     * user, whose ACLs the plan extends to writing the source topics when the configuration can resync.
     */
    public static KafkaResyncPublisher create(TtlStreamsConfig config) {
        return new KafkaResyncPublisher(
                new KafkaProducer<>(producerProperties(config), new StringSerializer(), new StringSerializer()),
                (error, topic) -> AccessDenied.in(
                                error,
                                config,
                                AclPlan.PROCESSOR_USER,
                                Optional.of(new AccessDenied.Request("Write", Acl.Resource.TOPIC, topic)))
                        .map(AccessDenied::message)
                        .orElseGet(error::getMessage));
    }

    /**
     * The producer settings: those of the processor's Kafka Streams settings a producer knows (bootstrap.servers,
     * security), then its {@code producer.}-prefixed overrides, then idempotence, which is not negotiable.
     */
    public static Properties producerProperties(TtlStreamsConfig config) {
        Properties streams = config.streamsProperties();
        Properties props = new Properties();
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
        return props;
    }

    @Override
    public void publish(ResyncEvent event) {
        producer.send(new ProducerRecord<>(event.topic(), event.key(), event.value()), (metadata, error) -> {
            if (error != null && failure.compareAndSet(null, error)) {
                failedTopic.set(event.topic());
            }
        });
    }

    @Override
    public void flush() {
        producer.flush();
        Exception error = failure.get();
        if (error != null) {
            throw new KafkaException(
                    "Could not publish resync events: " + explain.apply(error, failedTopic.get()), error);
        }
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(30));
    }
}
