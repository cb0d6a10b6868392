package io.ttlstreams.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ResyncTargetsTest {

    @Test
    void shouldRefuseWhenTheProcessorReadsOtherTopicsThanTheResyncWouldWrite() {
        assertThat(ResyncTargets.refusal(
                        List.of("mongo.app.sessions"),
                        Set.of("app.sessions", "app.events", "ttl.control"),
                        "ttl-streams"))
                .hasValueSatisfying(reason -> assertThat(reason)
                        .startsWith("the processor (application.id ttl-streams) reads [")
                        .contains("not [mongo.app.sessions]")
                        .contains("ttl.source.topic.prefix"));
    }

    @Test
    void shouldAllowWhenTheProcessorReadsEveryTargetTopic() {
        assertThat(ResyncTargets.refusal(List.of("app.sessions"), Set.of("app.sessions", "ttl.control"), "ttl-streams"))
                .isEmpty();
    }

    @Test
    void shouldAllowWhenTheGroupHasReadNothingYet() {
        assertThat(ResyncTargets.refusal(List.of("app.sessions"), Set.of(), "ttl-streams"))
                .isEmpty();
    }
}
