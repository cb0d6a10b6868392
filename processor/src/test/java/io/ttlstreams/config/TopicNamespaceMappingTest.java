package io.ttlstreams.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TopicNamespaceMappingTest {

    private final TopicNamespaceMapping mapping =
            new TopicNamespaceMapping(Map.of("legacy-sessions", "app.sessions", "cdc.app.users", "app.people"), "cdc");

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "legacy-sessions, app.sessions",
        "cdc.app.users, app.people",
        "cdc.app.carts, app.carts",
        "cdc.app.audit.2026, app.audit.2026",
        "other.app.carts, other.app.carts",
        "app.carts, app.carts",
    })
    void shouldMapExplicitEntriesThenThePrefixThenTheNameItself(String topic, String namespace) {
        assertThat(mapping.namespaceOf(topic)).contains(namespace);
    }

    @ParameterizedTest
    @CsvSource({"events, events", "cdc.app, app", "cdc.app., app."})
    void shouldLeaveJudgingTheNamespaceToTheCaller(String topic, String namespace) {
        assertThat(mapping.namespaceOf(topic)).contains(namespace);
    }

    @Test
    void shouldNotStripAPrefixThatIsOnlyTheStartOfAWord() {
        assertThat(new TopicNamespaceMapping(Map.of(), "cdc").namespaceOf("cdcx.app.carts"))
                .contains("cdcx.app.carts");
    }

    @Test
    void shouldUseTheTopicNameAsIsWithoutPrefix() {
        TopicNamespaceMapping unprefixed = new TopicNamespaceMapping(Map.of(), null);

        assertThat(unprefixed.namespaceOf("app.carts")).contains("app.carts");
        assertThat(unprefixed.topicsOf("app.carts")).containsExactly("app.carts");
    }

    @Test
    void shouldNameTopicsOfANamespaceInverselyToNamespaceOf() {
        assertThat(mapping.topicsOf("app.sessions")).containsExactly("legacy-sessions");
        assertThat(mapping.topicsOf("app.carts")).containsExactly("cdc.app.carts");
    }
}
