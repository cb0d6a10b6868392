package io.ttlstreams.platform;

import io.ttlstreams.connect.ConnectorConfigs;
import io.ttlstreams.platform.Acl.Resource;
import io.ttlstreams.platform.TopicSpec.Role;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.StreamsConfig;

/**
 * One Kafka principal per role with exactly the ACLs the trust model needs (docs/trust-model.md): the source
 * connectors write the change-event and heartbeat topics; the processor is the only writer of the delete topic; the
 * sink connector reads it and writes its dead letters; operators read the dead letters and send the guard's
 * decisions to the control topic; the Connect workers own
 * their internal topics and nothing else. Built from a {@link TopicPlan}, so that a topic the processor uses is never
 * missing from the ACLs and no ACL names a topic that is not in the plan.
 */
public final class AclPlan {

    /** The source connectors' user (through {@code producer.override.*} on a shared Connect cluster). */
    public static final String SOURCE_USER = "ttl-source";

    /** The processor's user. */
    public static final String PROCESSOR_USER = "ttl-processor";

    /** The sink connector's user (its consumer, and its dead-letter producer and admin client). */
    public static final String SINK_USER = "ttl-sink";

    /** Operators' user. */
    public static final String OPERATOR_USER = "ttl-ops";

    /** The Connect workers' own user: their internal topics and group. */
    public static final String CONNECT_USER = "ttl-connect";

    /** Operators' consumer group, to read the dead letters. */
    public static final String OPERATOR_GROUP = "ttl-ops";

    private final List<KafkaPrincipal> principals;

    private AclPlan(List<KafkaPrincipal> principals) {
        this.principals = List.copyOf(principals);
    }

    /**
     * The ACLs for {@code topics}.
     *
     * @param applicationId   Kafka Streams' {@code application.id}: the processor's group, and the prefix of its
     *                        internal topics and transactional ids
     * @param connectGroupId  the Connect workers' {@code group.id}, also the prefix of their internal topics
     */
    public static AclPlan of(TopicPlan topics, String applicationId, String connectGroupId) {
        List<KafkaPrincipal> principals = new ArrayList<>();

        List<Acl> source = new ArrayList<>();
        for (TopicSpec topic : topics.topics(Role.SOURCE)) {
            source.add(topic(topic, "publishes the change events of its namespace", "Write"));
        }
        for (TopicSpec topic : topics.topics(Role.HEARTBEAT)) {
            source.add(topic(topic, "publishes its heartbeats", "Write"));
        }
        principals.add(new KafkaPrincipal(SOURCE_USER, "MongoDB source connectors", source));

        List<Acl> processor = new ArrayList<>();
        for (TopicSpec topic : topics.topics(Role.SOURCE)) {
            processor.add(topic(topic, "reads the change events", "Read"));
        }
        for (TopicSpec topic : topics.topics(Role.HEARTBEAT)) {
            processor.add(topic(topic, "reads the newest heartbeat's timestamp (source staleness)", "Describe"));
        }
        for (TopicSpec topic : topics.topics(Role.CONTROL)) {
            processor.add(topic(
                    topic,
                    "writes and reads namespace-wide events; checks its settings",
                    "Read",
                    "Write",
                    "DescribeConfigs"));
        }
        for (TopicSpec topic : topics.topics(Role.DELETES)) {
            processor.add(topic(
                    topic, "the only writer of delete commands; checks its settings", "Write", "DescribeConfigs"));
        }
        for (TopicSpec topic : topics.topics(Role.DEAD_LETTERS)) {
            processor.add(topic(topic, "writes dead letters; checks its settings", "Write", "DescribeConfigs"));
        }
        for (TopicSpec topic : topics.topics(Role.AUDIT)) {
            processor.add(topic(topic, "writes audit events; checks its settings", "Write", "DescribeConfigs"));
        }
        for (TopicSpec topic : topics.topics(Role.SINK_DEAD_LETTERS)) {
            processor.add(topic(topic, "counts the commands the sink refused, by reason", "Read"));
        }
        String internal = applicationId + "-";
        processor.add(new Acl(
                Resource.TOPIC,
                internal,
                true,
                List.of("All"),
                "Kafka Streams' changelogs, which it creates and checks itself"));
        processor.add(new Acl(
                Resource.GROUP,
                applicationId,
                false,
                List.of("Read"),
                "its consumer group (" + StreamsConfig.APPLICATION_ID_CONFIG + ")"));
        processor.add(new Acl(
                Resource.TRANSACTIONAL_ID,
                internal,
                true,
                List.of("Write", "Describe"),
                "exactly-once transactions (exactly_once_v2)"));
        principals.add(new KafkaPrincipal(PROCESSOR_USER, "the ttl-streams processor", processor));

        List<Acl> sink = new ArrayList<>();
        for (TopicSpec topic : topics.topics(Role.DELETES)) {
            sink.add(topic(topic, "reads the delete commands", "Read"));
        }
        sink.add(new Acl(
                Resource.GROUP,
                "connect-" + ConnectorConfigs.SINK_NAME,
                false,
                List.of("Read"),
                "the sink connector's consumer group"));
        for (TopicSpec topic : topics.topics(Role.SINK_DEAD_LETTERS)) {
            sink.add(topic(topic, "writes the commands it refuses", "Write"));
        }
        principals.add(new KafkaPrincipal(SINK_USER, "the MongoDB sink connector", sink));

        List<Acl> operators = new ArrayList<>();
        for (Role role : List.of(Role.DEAD_LETTERS, Role.SINK_DEAD_LETTERS, Role.AUDIT)) {
            for (TopicSpec topic : topics.topics(role)) {
                operators.add(topic(topic, "inspects " + role.purpose(), "Read"));
            }
        }
        for (TopicSpec topic : topics.topics(Role.CONTROL)) {
            operators.add(
                    topic(topic, "sends the blast-radius guard's decisions (ttl-streams approve, --reject)", "Write"));
        }
        operators.add(new Acl(Resource.GROUP, OPERATOR_GROUP, false, List.of("Read"), "operators' consumer group"));
        principals.add(new KafkaPrincipal(OPERATOR_USER, "operators", operators));

        principals.add(new KafkaPrincipal(
                CONNECT_USER,
                "the Kafka Connect workers",
                List.of(
                        new Acl(
                                Resource.TOPIC,
                                connectGroupId + "-",
                                true,
                                List.of("Read", "Write", "Create", "DescribeConfigs"),
                                "the workers' config, offset and status topics"),
                        new Acl(Resource.GROUP, connectGroupId, false, List.of("Read"), "the workers' group"))));
        return new AclPlan(principals);
    }

    private static Acl topic(TopicSpec topic, String reason, String... operations) {
        return new Acl(Resource.TOPIC, topic.name(), false, List.of(operations), reason);
    }

    /** Every principal, in role order: source, processor, sink, operators, Connect workers. */
    public List<KafkaPrincipal> principals() {
        return principals;
    }
}
