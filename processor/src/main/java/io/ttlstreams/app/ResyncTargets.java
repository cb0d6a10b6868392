package io.ttlstreams.app;

import io.ttlstreams.config.SourceOptions;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.platform.AccessDenied;
import io.ttlstreams.platform.Acl;
import io.ttlstreams.platform.AclPlan;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.streams.StreamsConfig;

/**
 * Checks that the topics a resync publishes to are ones the processor reads: a resync against a configuration with
 * another topic prefix would otherwise write where nobody reads, and say it succeeded. What the processor reads is
 * what its consumer group ({@code application.id}) is assigned or has committed offsets for; under the streams
 * rebalance protocol, the source topics of its streams group's topology.
 */
final class ResyncTargets {

    private ResyncTargets() {}

    /**
     * @return why the resync must not publish, or empty when the processor reads every target topic, or when its
     *     group has neither members nor offsets (nothing to compare with: a processor not started yet)
     */
    static Optional<String> refusal(TtlStreamsConfig config) throws InterruptedException {
        String applicationId = config.streamsProperties().getProperty(StreamsConfig.APPLICATION_ID_CONFIG);
        Set<String> read;
        long timeoutMs = config.startupTimeout().toMillis();
        try (Admin admin =
                Admin.create(KafkaProbe.adminProperties(config.streamsProperties(), config.startupTimeout()))) {
            read = config.streamsRebalanceProtocol()
                    ? streamsGroupSources(admin, applicationId, timeoutMs)
                    : consumerGroupTopics(admin, applicationId, timeoutMs);
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            return Optional.of("cannot tell which topics the processor (application.id " + applicationId + ") reads: "
                    + AccessDenied.in(
                                    cause,
                                    config,
                                    AclPlan.PROCESSOR_USER,
                                    Optional.of(
                                            new AccessDenied.Request("Describe", Acl.Resource.GROUP, applicationId)))
                            .map(AccessDenied::message)
                            .orElseGet(() -> e.getCause() == null
                                    ? e.toString()
                                    : e.getCause().getMessage()));
        }
        return refusal(config.sourceTopics(), read, applicationId);
    }

    /**
     * The topics a consumer group (the classic protocol's) has committed offsets for or is assigned partitions of;
     * none for a group that does not exist.
     */
    private static Set<String> consumerGroupTopics(Admin admin, String applicationId, long timeoutMs)
            throws ExecutionException, TimeoutException, InterruptedException {
        Set<String> read = new TreeSet<>();
        admin
                .listConsumerGroupOffsets(applicationId)
                .partitionsToOffsetAndMetadata()
                .get(timeoutMs, TimeUnit.MILLISECONDS)
                .keySet()
                .stream()
                .map(TopicPartition::topic)
                .forEach(read::add);
        ConsumerGroupDescription group = admin.describeConsumerGroups(List.of(applicationId))
                .describedGroups()
                .get(applicationId)
                .get(timeoutMs, TimeUnit.MILLISECONDS);
        for (MemberDescription member : group.members()) {
            member.assignment().topicPartitions().forEach(partition -> read.add(partition.topic()));
        }
        return read;
    }

    /**
     * The source topics of a streams group's topology (KIP-1071, {@code group.protocol=streams}), as its members
     * declared it to the group coordinator: what the group reads, assigned or not. None when the group does not exist
     * (a processor never started); a streams group is no consumer group, so the classic look-up fails on it.
     */
    private static Set<String> streamsGroupSources(Admin admin, String applicationId, long timeoutMs)
            throws ExecutionException, TimeoutException, InterruptedException {
        Set<String> sources = new TreeSet<>();
        try {
            admin.describeStreamsGroups(List.of(applicationId))
                    .describedGroups()
                    .get(applicationId)
                    .get(timeoutMs, TimeUnit.MILLISECONDS)
                    .subtopologies()
                    .forEach(subtopology -> sources.addAll(subtopology.sourceTopics()));
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof GroupIdNotFoundException)) {
                throw e;
            }
        }
        return sources;
    }

    /** The decision on its own: {@code targets} against the topics {@code read} by the group. */
    static Optional<String> refusal(Collection<String> targets, Set<String> read, String applicationId) {
        if (read.isEmpty()) {
            return Optional.empty();
        }
        List<String> unread = new ArrayList<>(targets);
        unread.removeAll(read);
        if (unread.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of("the processor (application.id " + applicationId + ") reads " + read + ", not " + unread
                + ": resync events there would be read by nobody. Use the processor's own configuration, or check "
                + SourceOptions.SOURCE_TOPIC_PREFIX_CONFIG + " and " + SourceOptions.SOURCE_TOPICS_CONFIG);
    }
}
