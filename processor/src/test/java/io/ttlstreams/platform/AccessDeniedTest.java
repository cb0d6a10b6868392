package io.ttlstreams.platform;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.config.TestConfigs;
import io.ttlstreams.config.TtlStreamsConfig;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.streams.errors.StreamsException;
import org.junit.jupiter.api.Test;

/** A broker's refusal said as the ACL of the plan it lacks: principal, operation, resource and where to grant it. */
class AccessDeniedTest {

    private static final TtlStreamsConfig SCRAM = TestConfigs.config(
            "security.protocol",
            "SASL_SSL",
            "sasl.mechanism",
            "SCRAM-SHA-512",
            "sasl.jaas.config",
            "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"ttl-processor\""
                    + " password=\"pw\";");

    private static String message(Throwable error, TtlStreamsConfig config, String user) {
        return AccessDenied.in(error, config, user).orElseThrow().message();
    }

    @Test
    void shouldNameThePrincipalTheTopicAndThePlansGrantWhenAStreamThreadIsRefused() {
        Throwable error = new StreamsException(
                "Error encountered sending record to topic ttl.deletes",
                new TopicAuthorizationException(Set.of("ttl.deletes")));

        assertThat(message(error, SCRAM, AclPlan.PROCESSOR_USER))
                .startsWith("Kafka refused User:ttl-processor access on topic ttl.deletes"
                        + " (TopicAuthorizationException: Not authorized to access topics: [ttl.deletes]).")
                .contains("The plan grants User:ttl-processor Write, DescribeConfigs on topic ttl.deletes")
                .contains("ttl-streams platform --config FILE")
                .contains("docs/deployment.md")
                .doesNotContain("pw");
    }

    @Test
    void shouldNameTheOperationWhenTheCallerKnowsIt() {
        Throwable error = new KafkaException(new TopicAuthorizationException("Topic authorization failed."));

        assertThat(AccessDenied.in(
                                error,
                                SCRAM,
                                AclPlan.PROCESSOR_USER,
                                Optional.of(new AccessDenied.Request("DescribeConfigs", Acl.Resource.TOPIC, "ttl.dlq")))
                        .orElseThrow()
                        .message())
                .startsWith("Kafka refused User:ttl-processor DescribeConfigs on topic ttl.dlq")
                .contains("The plan grants User:ttl-processor Write, DescribeConfigs on topic ttl.dlq");
    }

    @Test
    void shouldNameTheGroupAndTheTransactionalIdPrefix() {
        assertThat(message(new GroupAuthorizationException("no", "ttl-streams"), SCRAM, AclPlan.PROCESSOR_USER))
                .contains("access on group ttl-streams")
                .contains("grants User:ttl-processor Read on group ttl-streams");
        assertThat(message(
                        new TransactionalIdAuthorizationException("Transactional Id authorization failed."),
                        SCRAM,
                        AclPlan.PROCESSOR_USER))
                .contains("access on transactionalId ttl-streams-*")
                .contains("grants User:ttl-processor Write on transactionalId ttl-streams-* (prefix)");
    }

    @Test
    void shouldSayThePlanGrantsNothingWhereItDoesNot() {
        assertThat(message(new ClusterAuthorizationException("ALTER"), SCRAM, AclPlan.PROCESSOR_USER))
                .contains("access on the cluster")
                .contains("grants User:ttl-processor nothing on the cluster");
        assertThat(message(new TopicAuthorizationException(Set.of("ttl.deletes")), SCRAM, AclPlan.OPERATOR_USER))
                .contains("grants User:ttl-ops nothing on topic ttl.deletes");
    }

    @Test
    void shouldSayWhichPrincipalOfThePlanWhenTheUserIsUnknownOrAnother() {
        TtlStreamsConfig other = TestConfigs.config(
                "security.protocol",
                "SASL_SSL",
                "sasl.mechanism",
                "PLAIN",
                "sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"prod-ttl\" password=\"p\";");

        assertThat(message(new TopicAuthorizationException(Set.of("ttl.control")), other, AclPlan.OPERATOR_USER))
                .startsWith("Kafka refused User:prod-ttl (the plan's User:ttl-ops) access on topic ttl.control");
        assertThat(message(
                        new TopicAuthorizationException(Set.of("ttl.control")),
                        TestConfigs.config(),
                        AclPlan.OPERATOR_USER))
                .startsWith("Kafka refused the principal of this configuration's client settings (the plan's"
                        + " User:ttl-ops)");
    }

    @Test
    void shouldFindNothingWhenTheFailureIsNoRefusal() {
        assertThat(AccessDenied.in(new StreamsException(new TimeoutException("slow")), SCRAM, AclPlan.PROCESSOR_USER))
                .isEmpty();
    }
}
