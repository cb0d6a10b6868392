package io.ttlstreams.app;

import io.ttlstreams.config.TtlStreamsConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes sure the topics the processor reads and writes exist before Kafka Streams starts.
 *
 * <p>The source connector creates a change-event topic only when the first event arrives, and Kafka
 * Streams refuses to start on a missing source topic, so missing topics are created with the broker's
 * default partitions and replication. The control topic must reach every task, so it gets as many
 * partitions as the largest source topic, and more when a source topic grew.
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
        plain.add(config.dlqTopic());
        config.auditTopic().ifPresent(plain::add);
        createMissing(plain, Optional.empty());
        int sourcePartitions = describe(config.sourceTopics()).values().stream()
                .mapToInt(d -> d.partitions().size())
                .max()
                .orElse(1);
        String control = config.controlTopic();
        Map<String, TopicDescription> existing = describe(List.of(control));
        if (existing.isEmpty()) {
            createMissing(Set.of(control), Optional.of(sourcePartitions));
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

    private void createMissing(Set<String> topics, Optional<Integer> partitions) throws InterruptedException {
        Set<String> missing = new LinkedHashSet<>(topics);
        missing.removeAll(describe(new ArrayList<>(topics)).keySet());
        if (missing.isEmpty()) {
            return;
        }
        LOG.info("Creating missing topics {}", missing);
        List<NewTopic> newTopics = missing.stream()
                .map(name -> new NewTopic(name, partitions, Optional.empty()))
                .toList();
        call(() -> admin.createTopics(newTopics).all().get());
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
