package io.ttlstreams.platform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.config.TestConfigs;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.connect.ConnectorConfigs;
import io.ttlstreams.platform.TopicSetting.Check;
import io.ttlstreams.platform.TopicSpec.Role;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class TopicPlanTest {

    private static TtlStreamsConfig config(String... extra) {
        Map<String, Object> props = TestConfigs.props(extra);
        props.putIfAbsent("ttl.source.topic.prefix", "mongo");
        return new TtlStreamsConfig(props);
    }

    private static TopicSpec only(TopicPlan plan, Role role) {
        assertThat(plan.topics(role)).hasSize(1);
        return plan.topics(role).get(0);
    }

    private static TopicSetting setting(TopicSpec topic, String name) {
        return topic.settings().stream()
                .filter(setting -> setting.name().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError(topic.name() + " has no " + name));
    }

    @Test
    void shouldGiveTheControlTopicAtLeastTheSourcePartitionsWhenPlanned() {
        TopicSpec control = only(TopicPlan.of(config(), 12, OptionalInt.of(3)), Role.CONTROL);

        assertThat(control.name()).isEqualTo("ttl.control");
        assertThat(control.partitions()).isEqualTo(12);
        assertThat(control.acceptsPartitions(12)).isTrue();
        assertThat(control.acceptsPartitions(24)).isTrue();
        assertThat(control.acceptsPartitions(11)).isFalse();
        assertThat(control.expectedPartitions()).isEqualTo("at least 12");
    }

    @Test
    void shouldRefuseACompactedDeleteTopicWhenChecked() {
        TopicSpec deletes = only(TopicPlan.of(config(), 6, OptionalInt.empty()), Role.DELETES);
        TopicSetting cleanup = setting(deletes, "cleanup.policy");

        assertThat(cleanup.value()).isEqualTo("delete");
        assertThat(cleanup.accepts("delete")).isTrue();
        assertThat(cleanup.accepts("compact")).isFalse();
        assertThat(cleanup.accepts("compact,delete")).isFalse();
        TopicSetting retention = setting(deletes, "retention.ms");
        assertThat(retention.value()).isEqualTo("604800000");
        assertThat(retention.accepts("7200000")).isTrue();
        assertThat(retention.accepts("-1")).isTrue();
        assertThat(retention.accepts("3600000")).isFalse();
    }

    @Test
    void shouldSizeTheDeadLetterTopicForTheProducerWhenItsRequestSizeIsRaised() {
        TopicSpec dlq = only(
                TopicPlan.of(config("producer.max.request.size", "5242880"), 6, OptionalInt.empty()),
                Role.DEAD_LETTERS);
        TopicSetting limit = setting(dlq, "max.message.bytes");

        assertThat(limit.value()).isEqualTo("5242880");
        assertThat(limit.check()).isEqualTo(Check.AT_LEAST);
        assertThat(limit.accepts("1048588")).isFalse();
        assertThat(limit.reason()).contains("max.request.size");
    }

    @Test
    void shouldKeepSourceEventsAtLeastAsLongAsTheEventTimeWindowWhenItIsLongerThanAWeek() {
        TopicPlan plan = TopicPlan.of(config("ttl.event.time.max.lag.ms", "1209600000"), 6, OptionalInt.empty());

        TopicSpec source = only(plan, Role.SOURCE);
        assertThat(source.name()).isEqualTo("mongo.app.sessions");
        assertThat(setting(source, "retention.ms").value()).isEqualTo("1209600000");
        assertThat(setting(only(TopicPlan.of(config(), 6, OptionalInt.empty()), Role.SOURCE), "retention.ms")
                        .value())
                .isEqualTo("604800000");
    }

    @Test
    void shouldLetSourceTopicsTakeTheLargestEventThePipelineProducesWhenItBoundsThem() {
        TtlStreamsConfig preImages =
                config("ttl.expired.topic", "ttl.expired", "ttl.rule.sessions.expired.document", "pre-image");
        TopicSpec source = only(TopicPlan.of(preImages, 6, OptionalInt.empty()), Role.SOURCE);
        TopicSetting limit = setting(source, "max.message.bytes");

        assertThat(limit.value())
                .isEqualTo(ConnectorConfigs.render(preImages, ConnectorConfigs.DEFAULT_MONGODB_URI, false)
                        .sources()
                        .get(0)
                        .config()
                        .get(ConnectorConfigs.SOURCE_MAX_REQUEST_SIZE));
        assertThat(limit.check()).isEqualTo(Check.ADVISORY);
        assertThat(limit.reason()).contains(ConnectorConfigs.SOURCE_MAX_REQUEST_SIZE);
    }

    @Test
    void shouldAskForTwoInSyncReplicasFromThreeReplicasOnWhenSizingMinInSyncReplicas() {
        assertThat(TopicPlan.minInSyncReplicas(1)).isEqualTo(1);
        assertThat(TopicPlan.minInSyncReplicas(2)).isEqualTo(1);
        assertThat(TopicPlan.minInSyncReplicas(3)).isEqualTo(2);
        assertThat(TopicPlan.minInSyncReplicas(5)).isEqualTo(2);
        assertThatThrownBy(() -> TopicPlan.minInSyncReplicas(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldAskForMinInSyncReplicasOnlyWhenTheReplicationFactorIsKnown() {
        TopicPlan defaults = TopicPlan.of(config(), 6, OptionalInt.empty());
        TopicPlan replicated = TopicPlan.of(config(), 6, OptionalInt.of(3));

        assertThat(defaults.topics())
                .allSatisfy(topic -> assertThat(topic.settings())
                        .noneMatch(setting -> setting.name().equals("min.insync.replicas")));
        assertThat(replicated.topics())
                .allSatisfy(topic -> assertThat(
                                setting(topic, "min.insync.replicas").value())
                        .isEqualTo("2"));
    }

    @Test
    void shouldListTheHeartbeatTopicOfEachSourceConnectorWhenRulesNameADatabase() {
        TopicPlan plan = TopicPlan.of(config(), 6, OptionalInt.empty());

        assertThat(plan.topics(Role.HEARTBEAT)).extracting(TopicSpec::name).containsExactly("__mongodb_heartbeats.app");
        assertThat(plan.topics())
                .extracting(TopicSpec::name)
                .containsExactly(
                        "mongo.app.sessions",
                        "__mongodb_heartbeats.app",
                        "ttl.control",
                        "ttl.deletes",
                        "ttl.dlq",
                        "ttl.sink.dlq");
        assertThat(TopicPlan.of(config("ttl.audit.topic", "ttl.audit"), 6, OptionalInt.empty())
                        .topics(Role.AUDIT))
                .extracting(TopicSpec::name)
                .containsExactly("ttl.audit");
    }
}
