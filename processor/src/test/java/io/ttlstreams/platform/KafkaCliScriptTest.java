package io.ttlstreams.platform;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.config.TestConfigs;
import org.junit.jupiter.api.Test;

/** The kafka-cli script's part that depends on the group protocol: the streams group's standbys, set on the brokers. */
class KafkaCliScriptTest {

    @Test
    void shouldGiveTheStreamsGroupItsStandbysWhenGroupProtocolIsStreams() {
        String script = KafkaCliScript.render(ExamplePlatform.of(TestConfigs.props("group.protocol", "streams")));

        assertThat(script)
                .contains("kafka-configs \"${admin[@]}\" --alter --entity-type groups --entity-name ttl-streams"
                        + " --add-config streams.num.standby.replicas=1\n");
    }

    @Test
    void shouldSetTheStandbysTheConfigurationAsksForWhenItSetsNumStandbyReplicas() {
        String script = KafkaCliScript.render(ExamplePlatform.of(TestConfigs.props(
                "group.protocol", "streams", "num.standby.replicas", "2", "application.id", "ttl-prod")));

        assertThat(script)
                .contains("--entity-type groups --entity-name ttl-prod --add-config streams.num.standby.replicas=2\n");
    }

    @Test
    void shouldAlterNoGroupWhenTheClassicProtocolRuns() {
        assertThat(KafkaCliScript.render(ExamplePlatform.of(TestConfigs.props())))
                .doesNotContain("kafka-configs");
    }
}
