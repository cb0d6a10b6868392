package io.ttlstreams.platform;

import io.ttlstreams.config.ResyncOptions;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.connect.ConnectorConfigs;
import io.ttlstreams.platform.Acl.Resource;
import io.ttlstreams.platform.TopicSpec.Role;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.streams.StreamsConfig;

/**
 * One Kafka principal per role with exactly the ACLs the trust model needs (docs/trust-model.md): the source
 * connectors write the change-event and heartbeat topics; the processor is the only writer of the delete topic; the
 * sink connector reads it and writes its dead letters; operators read the dead letters and send the guard's
 * decisions to the control topic; the Connect workers own
 * their internal topics and nothing else. Built from a {@link TopicPlan}, so that a topic the processor uses is never
 * missing from the ACLs and no ACL names a topic that is not in the plan.
 *
 * <p>No ACL names a wildcard resource or the {@code All} operation, and the two prefixed ones (Kafka Streams' internal
 * topics and transactional ids, {@code <application.id>-}; the Connect workers' topics, {@code <group.id>-}) cover no
 * topic of the plan and not each other: {@link #of} refuses a configuration where they would. The embedded stack's
 * broker enforces exactly these ACLs, and its tests show each one needed ({@code LeastPrivilegeIT}).
 */
public final class AclPlan {

    /** The source connectors' user (through {@code producer.override.*} on a shared Connect cluster). */
    public static final String SOURCE_USER = ConnectorConfigs.SOURCE_USER;

    /** The processor's user. */
    public static final String PROCESSOR_USER = "ttl-processor";

    /** The sink connector's user (its consumer, and its dead-letter producer and admin client). */
    public static final String SINK_USER = ConnectorConfigs.SINK_USER;

    /** Operators' user. */
    public static final String OPERATOR_USER = "ttl-ops";

    /** The Connect workers' own user: their internal topics and group. */
    public static final String CONNECT_USER = "ttl-connect";

    /** Operators' consumer group, to read the dead letters. */
    public static final String OPERATOR_GROUP = "ttl-ops";

    /**
     * What Kafka Streams does with its internal topics (changelogs; this topology has no repartition topic): creates
     * the missing ones at start-up ({@code Create}; it reads their partitions with {@code Describe}, which the others
     * imply), writes them in its transactions, and restores and keeps standbys from them ({@code Read}). Nothing
     * else: no {@code Delete} (repartition topics only), no {@code DescribeConfigs} (the check of settings that uses it
     * is the reset tool's, not the running application's).
     */
    static final List<String> INTERNAL_TOPIC_OPERATIONS = List.of("Create", "Read", "Write");

    /**
     * What a distributed Connect worker does with its config, offset and status topics: creates them, writes and
     * reads them. As Strimzi's documentation grants it; without {@code DescribeConfigs} the worker skips its check
     * that topics it finds are compacted (it creates them compacted itself).
     */
    static final List<String> CONNECT_TOPIC_OPERATIONS = List.of("Read", "Write", "Create");

    private final List<KafkaPrincipal> principals;

    private AclPlan(List<KafkaPrincipal> principals) {
        this.principals = List.copyOf(principals);
    }

    /**
     * The ACLs of {@code config}'s deployment.
     *
     * @param topics         its topics ({@link TopicPlan#of})
     * @param connectGroupId the Connect workers' {@code group.id}, also the prefix of their internal topics
     * @throws IllegalArgumentException when a prefixed ACL would cover a topic of the plan or another prefix: an
     *     {@code application.id} or Connect group that another topic's name starts with
     */
    public static AclPlan of(TtlStreamsConfig config, TopicPlan topics, String connectGroupId) {
        String applicationId = Platform.applicationId(config);
        List<KafkaPrincipal> principals = new ArrayList<>();

        List<Acl> source = new ArrayList<>();
        grant(source, topics, Role.SOURCE, "publishes the change events of its namespace", "Write");
        grant(source, topics, Role.HEARTBEAT, "publishes its heartbeats", "Write");
        principals.add(new KafkaPrincipal(SOURCE_USER, "MongoDB source connectors", source));

        List<Acl> processor = new ArrayList<>();
        if (config.mongodbUri().isPresent()) {
            // Resync (the command and run's sweep) publishes with the processor's client settings, and needs
            // ttl.mongodb.uri: without it the processor's user never writes a source topic.
            String reason = "reads the change events; publishes resync events (" + ResyncOptions.MONGODB_URI_CONFIG
                    + " is set)";
            grant(processor, topics, Role.SOURCE, reason, "Read", "Write");
        } else {
            grant(processor, topics, Role.SOURCE, "reads the change events", "Read");
        }
        grant(
                processor,
                topics,
                Role.HEARTBEAT,
                "reads the newest heartbeat's timestamp (source staleness)",
                "Describe");
        grantChecked(processor, topics, Role.CONTROL, "writes and reads namespace-wide events", "Read", "Write");
        grantChecked(processor, topics, Role.DELETES, "the only writer of delete commands", "Write");
        grantChecked(processor, topics, Role.DEAD_LETTERS, "writes dead letters", "Write");
        grantChecked(processor, topics, Role.AUDIT, "writes audit events", "Write");
        grantChecked(processor, topics, Role.EXPIRED, "writes the expired records", "Write");
        grant(processor, topics, Role.SINK_DEAD_LETTERS, "counts the commands the sink refused, by reason", "Read");
        String internal = applicationId + "-";
        processor.add(new Acl(
                Resource.TOPIC,
                internal,
                true,
                INTERNAL_TOPIC_OPERATIONS,
                "Kafka Streams' changelogs: creates the missing ones, writes and restores them"));
        processor.add(group(applicationId, "its consumer group (" + StreamsConfig.APPLICATION_ID_CONFIG + ")"));
        processor.add(new Acl(
                Resource.TRANSACTIONAL_ID,
                internal,
                true,
                List.of("Write"),
                "exactly-once transactions (exactly_once_v2)"));
        principals.add(new KafkaPrincipal(PROCESSOR_USER, "the ttl-streams processor", processor));

        List<Acl> sink = new ArrayList<>();
        grant(sink, topics, Role.DELETES, "reads the delete commands", "Read");
        sink.add(group("connect-" + ConnectorConfigs.SINK_NAME, "the sink connector's consumer group"));
        grant(sink, topics, Role.SINK_DEAD_LETTERS, "writes the commands it refuses", "Write");
        principals.add(new KafkaPrincipal(SINK_USER, "the MongoDB sink connector", sink));

        List<Acl> operators = new ArrayList<>();
        for (Role role : List.of(Role.DEAD_LETTERS, Role.SINK_DEAD_LETTERS, Role.AUDIT, Role.EXPIRED)) {
            grant(operators, topics, role, "inspects " + role.purpose(), "Read");
        }
        grant(
                operators,
                topics,
                Role.CONTROL,
                "sends the blast-radius guard's decisions (ttl-streams approve, --reject)",
                "Write");
        operators.add(group(OPERATOR_GROUP, "operators' consumer group"));
        principals.add(new KafkaPrincipal(OPERATOR_USER, "operators", operators));

        principals.add(new KafkaPrincipal(
                CONNECT_USER,
                "the Kafka Connect workers",
                List.of(
                        new Acl(
                                Resource.TOPIC,
                                connectGroupId + "-",
                                true,
                                CONNECT_TOPIC_OPERATIONS,
                                "the workers' config, offset and status topics"),
                        group(connectGroupId, "the workers' group"))));
        checkPrefixes(principals, topics);
        return new AclPlan(principals);
    }

    /**
     * Fails when a prefixed ACL covers a topic of the plan, or another principal's prefix: each prefix is for topics
     * that its principal creates itself, and must not hand it anybody else's.
     */
    private static void checkPrefixes(List<KafkaPrincipal> principals, TopicPlan topics) {
        for (KafkaPrincipal principal : principals) {
            for (Acl acl : principal.acls()) {
                if (!acl.prefixed() || acl.resource() != Resource.TOPIC) {
                    continue;
                }
                for (TopicSpec topic : topics.topics()) {
                    if (topic.name().startsWith(acl.name())) {
                        throw new IllegalArgumentException(prefixProblem(
                                principal,
                                acl,
                                "topic " + topic.name() + " (" + topic.role().purpose() + ")"));
                    }
                }
                for (KafkaPrincipal other : principals) {
                    for (Acl prefix : other.acls()) {
                        if (prefix != acl
                                && prefix.prefixed()
                                && prefix.resource() == Resource.TOPIC
                                && (prefix.name().startsWith(acl.name())
                                        || acl.name().startsWith(prefix.name()))) {
                            throw new IllegalArgumentException(prefixProblem(
                                    principal, acl, other.principal() + "'s topics " + prefix.name() + "*"));
                        }
                    }
                }
            }
        }
    }

    private static String prefixProblem(KafkaPrincipal principal, Acl acl, String covered) {
        return "the ACL of " + principal.principal() + " on the topics " + acl.name() + "* (" + acl.reason()
                + ") would also cover " + covered + ": choose an " + StreamsConfig.APPLICATION_ID_CONFIG
                + " and a Connect group (--connect-cluster) that no other topic's name starts with";
    }

    /** Grants {@code operations} on each topic of {@code role}. */
    private static void grant(List<Acl> acls, TopicPlan topics, Role role, String reason, String... operations) {
        topics.topics(role)
                .forEach(topic -> acls.add(new Acl(Resource.TOPIC, topic.name(), false, List.of(operations), reason)));
    }

    /**
     * Grants {@code operations} on each topic of {@code role}, which the processor uses: its start-up check reads
     * their settings ({@code DescribeConfigs}) where the plan checks any.
     */
    private static void grantChecked(List<Acl> acls, TopicPlan topics, Role role, String reason, String... operations) {
        for (TopicSpec topic : topics.topics(role)) {
            boolean checks =
                    topic.settings().stream().anyMatch(setting -> setting.check() != TopicSetting.Check.ADVISORY);
            List<String> all = new ArrayList<>(List.of(operations));
            if (checks) {
                all.add("DescribeConfigs");
            }
            acls.add(new Acl(
                    Resource.TOPIC, topic.name(), false, all, checks ? reason + "; checks its settings" : reason));
        }
    }

    /** Reading the group's offsets: what a consumer group needs. */
    private static Acl group(String name, String reason) {
        return new Acl(Resource.GROUP, name, false, List.of("Read"), reason);
    }

    /** Every principal, in role order: source, processor, sink, operators, Connect workers. */
    public List<KafkaPrincipal> principals() {
        return principals;
    }

    /** Kafka's operation for a name as {@code kafka-acls} and Strimzi write it: {@code DescribeConfigs}. */
    static AclOperation operation(String name) {
        AclOperation operation = AclOperation.fromString(
                name.replaceAll("([a-z])([A-Z])", "$1_$2").toUpperCase(Locale.ROOT));
        if (operation == AclOperation.UNKNOWN || operation == AclOperation.ANY) {
            throw new IllegalArgumentException("Not a Kafka ACL operation: " + name);
        }
        return operation;
    }

    /** The principal of {@code user}, if the plan has one. */
    public Optional<KafkaPrincipal> principal(String user) {
        return principals.stream()
                .filter(principal -> principal.user().equals(user))
                .findFirst();
    }

    /**
     * The plan as Kafka's ACL bindings, one per principal, resource and operation, allowed from any host: what
     * {@code kafka-acls --add} creates for {@link KafkaCliScript#aclCommands} and the User Operator for the rendered
     * {@code KafkaUser}s.
     */
    public List<AclBinding> bindings() {
        List<AclBinding> bindings = new ArrayList<>();
        for (KafkaPrincipal principal : principals) {
            for (Acl acl : principal.acls()) {
                ResourcePattern pattern = new ResourcePattern(
                        acl.resource().kafkaType(),
                        acl.name(),
                        acl.prefixed() ? PatternType.PREFIXED : PatternType.LITERAL);
                for (String operation : acl.operations()) {
                    bindings.add(new AclBinding(
                            pattern,
                            new AccessControlEntry(
                                    principal.principal(), "*", operation(operation), AclPermissionType.ALLOW)));
                }
            }
        }
        return bindings;
    }
}
