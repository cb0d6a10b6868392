package io.ttlstreams.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.contract.Namespace;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class TopicNamespaceMappingTest {

    private final TopicNamespaceMapping mapping = new TopicNamespaceMapping(
            Map.of("legacy-sessions", Namespace.parse("app.sessions"), "cdc.app.users", Namespace.parse("app.people")),
            "cdc");

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
        assertThat(mapping.namespaceOf(topic)).contains(Namespace.parse(namespace));
    }

    @ParameterizedTest
    @ValueSource(strings = {"events", "cdc.app", "cdc.app.", "cdc.a b.c"})
    void shouldMapATopicNamingNoValidCollectionToNothing(String topic) {
        assertThat(mapping.namespaceOf(topic)).isEmpty();
    }

    @Test
    void shouldNotStripAPrefixThatIsOnlyTheStartOfAWord() {
        assertThat(new TopicNamespaceMapping(Map.of(), "cdc").namespaceOf("cdcx.app.carts"))
                .contains(Namespace.parse("cdcx.app.carts"));
    }

    @Test
    void shouldUseTheTopicNameAsIsWithoutPrefix() {
        TopicNamespaceMapping unprefixed = new TopicNamespaceMapping(Map.of(), null);

        assertThat(unprefixed.namespaceOf("app.carts")).contains(Namespace.parse("app.carts"));
        assertThat(unprefixed.topicsOf(Namespace.parse("app.carts"))).containsExactly("app.carts");
    }

    @Test
    void shouldNameTopicsOfANamespaceInverselyToNamespaceOf() {
        assertThat(mapping.topicsOf(Namespace.parse("app.sessions"))).containsExactly("legacy-sessions");
        assertThat(mapping.topicsOf(Namespace.parse("app.carts"))).containsExactly("cdc.app.carts");
    }
}
