package io.ttlstreams.app;

import io.ttlstreams.config.OutputTopicOptions;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.platform.AccessDenied;
import io.ttlstreams.platform.Acl;
import io.ttlstreams.platform.AclPlan;
import io.ttlstreams.platform.TopicPlan;
import io.ttlstreams.platform.TopicSetting;
import io.ttlstreams.platform.TopicSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.streams.StreamsConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes sure the topics the processor reads and writes exist, as {@link TopicPlan} says they must, before Kafka
 * Streams starts.
 *
 * <p>With {@value OutputTopicOptions#TOPICS_CREATE_CONFIG} (the default), missing topics are created with the plan's
 * settings and the broker's default partitions and replication, since the source connector creates a change-event
 * topic only when the first event arrives and Kafka Streams refuses to start on a missing source topic. The control
 * topic must reach every task, so it gets as many partitions as the largest source topic, and more when a source topic
 * grew. Without it, nothing is created or changed: each topic must have been declared (as {@code ttl-streams
 * platform} renders them).
 *
 * <p>Either way, a topic that existed is checked against the plan's checked settings (a compacted delete topic, a
 * dead-letter topic that cannot take the producer's largest record, which would stop its task), and start-up stops
 * with one line per problem, naming the topic, the setting, the expected and the actual value. A request the cluster
 * refuses for want of an ACL stops it with one line naming the principal, the operation, the topic and the ACL of
 * the plan that grants it ({@link AccessDenied}).
 */
final class TopicProvisioner {

    private static final Logger LOG = LoggerFactory.getLogger(TopicProvisioner.class);

    private final Admin admin;
    private TtlStreamsConfig config;

    TopicProvisioner(Admin admin) {
        this.admin = admin;
    }

    /**
     * Creates missing topics and widens the control topic where allowed, and checks the topics that existed.
     *
     * @return the number of tasks that share the work: the largest partition count of the source and control
     *     topics, which Kafka Streams co-partitions into one task per partition
     * @throws ConfigException listing, one per line, each topic that is missing (when it may not be created) or set
     *     otherwise than the plan checks; or, in one line naming {@code bootstrap.servers}, why the cluster could not
     *     be asked (gone since the start-up probe, or refusing)
     */
    int provision(TtlStreamsConfig config) throws InterruptedException {
        this.config = config;
        boolean create = config.getBoolean(OutputTopicOptions.TOPICS_CREATE_CONFIG);
        // The sources first: the control topic's partitions follow theirs.
        TopicPlan sourcesOnly = TopicPlan.of(config, 1, OptionalInt.empty());
        List<TopicSpec> sources = sourcesOnly.topics(TopicSpec.Role.SOURCE);
        if (create) {
            createMissing(sources, describe(names(sources)));
        }
        Map<String, TopicDescription> sourceTopics = describe(names(sources));
        int sourcePartitions = sourceTopics.values().stream()
                .mapToInt(d -> d.partitions().size())
                .max()
                .orElse(1);
        List<TopicSpec> used = TopicPlan.of(config, sourcePartitions, OptionalInt.empty()).topics().stream()
                .filter(topic -> topic.role().usedByProcessor())
                .toList();
        Map<String, TopicDescription> existing = describe(names(used));
        List<String> problems = new ArrayList<>();
        List<TopicSpec> declared = new ArrayList<>();
        for (TopicSpec topic : used) {
            TopicDescription description = existing.get(topic.name());
            if (description != null) {
                declared.add(topic);
                int partitions = description.partitions().size();
                if (!topic.acceptsPartitions(partitions)) {
                    if (create && topic.role() == TopicSpec.Role.CONTROL) {
                        widen(topic);
                    } else {
                        problems.add(problem(
                                topic.name(),
                                "partitions",
                                topic.expectedPartitions(),
                                partitions,
                                topic.partitionsReason()));
                    }
                }
            } else if (!create) {
                problems.add("topic " + topic.name() + ": expected to exist ("
                        + topic.role().purpose()
                        + "), actual: missing; declare it as ttl-streams platform renders it, or set "
                        + OutputTopicOptions.TOPICS_CREATE_CONFIG + "=true");
            }
        }
        if (create) {
            createMissing(used, existing);
        }
        problems.addAll(checkSettings(declared));
        if (!problems.isEmpty()) {
            throw new ConfigException(String.join("\n", problems));
        }
        int control = existing.containsKey(config.controlTopic())
                ? existing.get(config.controlTopic()).partitions().size()
                : sourcePartitions;
        return Math.max(sourcePartitions, control);
    }

    private static List<String> names(List<TopicSpec> topics) {
        return topics.stream().map(TopicSpec::name).toList();
    }

    private static String problem(String topic, String setting, String expected, Object actual, String reason) {
        return "topic " + topic + ": " + setting + " expected " + expected + ", actual " + actual + " (" + reason + ")";
    }

    private void widen(TopicSpec control) throws InterruptedException {
        LOG.info(
                "Widening control topic {} to {} partitions to match the source topics",
                control.name(),
                control.partitions());
        call(
                () -> admin.createPartitions(Map.of(control.name(), NewPartitions.increaseTo(control.partitions())))
                        .all()
                        .get(),
                "Alter",
                control.name());
    }

    /** The checked settings of {@code topics}, which exist, that their configurations do not meet. */
    private List<String> checkSettings(List<TopicSpec> topics) throws InterruptedException {
        Map<ConfigResource, TopicSpec> resources = new LinkedHashMap<>();
        for (TopicSpec topic : topics) {
            if (topic.settings().stream().anyMatch(setting -> setting.check() != TopicSetting.Check.ADVISORY)) {
                resources.put(new ConfigResource(ConfigResource.Type.TOPIC, topic.name()), topic);
            }
        }
        if (resources.isEmpty()) {
            return List.of();
        }
        List<String> problems = new ArrayList<>();
        admin.describeConfigs(resources.keySet()).values().forEach((resource, future) -> {
            Config config;
            try {
                config = future.get();
            } catch (ExecutionException e) {
                if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                    // Created a moment ago (by another instance starting too), with the settings that instance set.
                    LOG.info(
                            "Topic {} is too new to have its configuration described; it is not checked",
                            resource.name());
                    return;
                }
                throw failure(
                        e.getCause(),
                        "DescribeConfigs",
                        resource.name(),
                        "cannot describe the configuration of topic " + resource.name());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while describing topic " + resource.name(), e);
            }
            for (TopicSetting setting : resources.get(resource).settings()) {
                ConfigEntry entry = config == null ? null : config.get(setting.name());
                String actual = entry == null ? null : entry.value();
                if (!setting.accepts(actual)) {
                    problems.add(
                            problem(resource.name(), setting.name(), setting.expected(), actual, setting.reason()));
                }
            }
        });
        return problems;
    }

    /** Creates those of {@code topics} missing from {@code existing}, with their settings. */
    private void createMissing(List<TopicSpec> topics, Map<String, TopicDescription> existing)
            throws InterruptedException {
        List<NewTopic> missing = new ArrayList<>();
        for (TopicSpec topic : topics) {
            if (!existing.containsKey(topic.name())) {
                Map<String, String> settings = new LinkedHashMap<>();
                topic.settings().forEach(setting -> settings.put(setting.name(), setting.value()));
                // Only the control topic's partitions matter to the processor; the others keep the broker's default.
                Optional<Integer> partitions =
                        topic.role() == TopicSpec.Role.CONTROL ? Optional.of(topic.partitions()) : Optional.empty();
                missing.add(new NewTopic(topic.name(), partitions, Optional.empty()).configs(settings));
            }
        }
        if (missing.isEmpty()) {
            return;
        }
        LOG.info(
                "Creating missing topics {}",
                missing.stream().map(NewTopic::name).toList());
        call(
                () -> admin.createTopics(missing).all().get(),
                "Create",
                missing.stream().map(NewTopic::name).collect(Collectors.joining(", ")));
    }

    private Map<String, TopicDescription> describe(List<String> topics) throws InterruptedException {
        Map<String, TopicDescription> found = new HashMap<>();
        admin.describeTopics(topics).topicNameValues().forEach((name, future) -> {
            try {
                found.put(name, future.get());
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw failure(e.getCause(), "Describe", name, "cannot describe topic " + name);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while describing topic " + name, e);
            }
        });
        return found;
    }

    /**
     * The failure of {@code operation} on topic {@code topic}, in one line: the missing ACL when the cluster refused
     * it, else, naming {@code bootstrap.servers}, {@code what} failed and why.
     */
    private ConfigException failure(Throwable cause, String operation, String topic, String what) {
        return AccessDenied.in(
                        cause,
                        config,
                        AclPlan.PROCESSOR_USER,
                        Optional.of(new AccessDenied.Request(operation, Acl.Resource.TOPIC, topic)))
                .map(denied -> new ConfigException(
                        operation.equals("Create")
                                ? "Creating " + topic + ": " + denied.message() + ". The plan gives the processor no"
                                        + " Create on its topics: declare them as ttl-streams platform renders them and"
                                        + " set " + OutputTopicOptions.TOPICS_CREATE_CONFIG + "=false"
                                : denied.message()))
                .orElseGet(() -> {
                    // The start-up probe reached the cluster a moment ago: it went away since, or refuses what is
                    // asked.
                    String why = what + ": " + cause;
                    return new ConfigException(
                            StreamsConfig.BOOTSTRAP_SERVERS_CONFIG,
                            config.streamsProperties().getProperty(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG),
                            "provisioning the topics failed: "
                                    + why.lines().findFirst().orElse(why));
                });
    }

    private interface AdminCall {
        void run() throws ExecutionException, InterruptedException;
    }

    private void call(AdminCall call, String operation, String topics) throws InterruptedException {
        try {
            call.run();
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException)) {
                throw failure(e.getCause(), operation, topics, "Kafka admin request failed");
            }
        }
    }
}
