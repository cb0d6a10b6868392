package io.ttlstreams.app;

import io.ttlstreams.config.OutputTopicOptions;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.processor.DeadLetters;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.streams.StreamsConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes sure the topics the processor reads and writes exist before Kafka Streams starts.
 *
 * <p>The source connector creates a change-event topic only when the first event arrives, and Kafka
 * Streams refuses to start on a missing source topic, so missing topics are created with the broker's
 * default partitions and replication. The control topic must reach every task, so it gets as many
 * partitions as the largest source topic, and more when a source topic grew.
 *
 * <p>The dead-letter topic must take every dead letter, which is at most the producer's {@code max.request.size}
 * (see {@link DeadLetters}): it is created with that {@code max.message.bytes}, and an existing one that takes less
 * stops start-up with a message naming both settings, since a dead letter that cannot be written would stop its task.
 */
final class TopicProvisioner {

    private static final Logger LOG = LoggerFactory.getLogger(TopicProvisioner.class);

    private final Admin admin;

    TopicProvisioner(Admin admin) {
        this.admin = admin;
    }

    /**
     * Creates missing topics and widens the control topic where needed.
     *
     * @return the number of tasks that share the work: the largest partition count of the source and control
     *     topics, which Kafka Streams co-partitions into one task per partition
     */
    int provision(TtlStreamsConfig config) throws InterruptedException {
        Set<String> plain = new LinkedHashSet<>(config.sourceTopics());
        plain.add(config.deleteTopic());
        config.auditTopic().ifPresent(plain::add);
        plain.remove(config.dlqTopic());
        createMissing(plain, Optional.empty(), Map.of());
        int deadLetterLimit = DeadLetters.producerLimit(config.streamsProperties());
        boolean created = createMissing(
                Set.of(config.dlqTopic()),
                Optional.empty(),
                Map.of(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, Integer.toString(deadLetterLimit)));
        if (!created) {
            checkTakes(config.dlqTopic(), deadLetterLimit);
        }
        int sourcePartitions = describe(config.sourceTopics()).values().stream()
                .mapToInt(d -> d.partitions().size())
                .max()
                .orElse(1);
        String control = config.controlTopic();
        Map<String, TopicDescription> existing = describe(List.of(control));
        if (existing.isEmpty()) {
            createMissing(Set.of(control), Optional.of(sourcePartitions), Map.of());
        } else if (existing.get(control).partitions().size() < sourcePartitions) {
            LOG.info(
                    "Widening control topic {} to {} partitions to match the source topics", control, sourcePartitions);
            call(() -> admin.createPartitions(Map.of(control, NewPartitions.increaseTo(sourcePartitions)))
                    .all()
                    .get());
        }
        return existing.isEmpty()
                ? sourcePartitions
                : Math.max(sourcePartitions, existing.get(control).partitions().size());
    }

    /** Fails when {@code topic}, which existed before, cannot store records of {@code bytes} bytes. */
    private void checkTakes(String topic, int bytes) throws InterruptedException {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        Config topicConfig;
        try {
            topicConfig = admin.describeConfigs(List.of(resource)).all().get().get(resource);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                // Created a moment ago (by another instance starting too), with the limit that instance set.
                LOG.info(
                        "Topic {} is too new to have its configuration described; its size limit is not checked",
                        topic);
                return;
            }
            throw new IllegalStateException(
                    "Cannot describe the configuration of topic " + topic + ": " + e.getCause(), e);
        }
        ConfigEntry limit = topicConfig == null ? null : topicConfig.get(TopicConfig.MAX_MESSAGE_BYTES_CONFIG);
        if (limit != null && limit.value() != null && Integer.parseInt(limit.value()) < bytes) {
            throw new ConfigException(
                    OutputTopicOptions.DLQ_TOPIC_CONFIG,
                    topic,
                    "The dead-letter topic takes records of at most " + limit.value() + " bytes (its "
                            + TopicConfig.MAX_MESSAGE_BYTES_CONFIG + "), less than the " + bytes
                            + " bytes the producer may send (" + ProducerConfig.MAX_REQUEST_SIZE_CONFIG
                            + "): raise the topic's " + TopicConfig.MAX_MESSAGE_BYTES_CONFIG + " or lower "
                            + StreamsConfig.producerPrefix(ProducerConfig.MAX_REQUEST_SIZE_CONFIG));
        }
    }

    /** Creates those of {@code topics} that are missing; returns whether any was. */
    private boolean createMissing(Set<String> topics, Optional<Integer> partitions, Map<String, String> topicConfigs)
            throws InterruptedException {
        Set<String> missing = new LinkedHashSet<>(topics);
        missing.removeAll(describe(new ArrayList<>(topics)).keySet());
        if (missing.isEmpty()) {
            return false;
        }
        LOG.info("Creating missing topics {}", missing);
        List<NewTopic> newTopics = missing.stream()
                .map(name -> new NewTopic(name, partitions, Optional.empty()).configs(topicConfigs))
                .toList();
        call(() -> admin.createTopics(newTopics).all().get());
        return true;
    }

    private Map<String, TopicDescription> describe(List<String> topics) throws InterruptedException {
        Map<String, TopicDescription> found = new HashMap<>();
        admin.describeTopics(topics).topicNameValues().forEach((name, future) -> {
            try {
                found.put(name, future.get());
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw new IllegalStateException("Cannot describe topic " + name + ": " + e.getCause(), e);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while describing topic " + name, e);
            }
        });
        return found;
    }

    private interface AdminCall {
        void run() throws ExecutionException, InterruptedException;
    }

    private static void call(AdminCall call) throws InterruptedException {
        try {
            call.run();
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException)) {
                throw new IllegalStateException(
                        "Kafka admin request failed: " + e.getCause().getMessage(), e);
            }
        }
    }
}
