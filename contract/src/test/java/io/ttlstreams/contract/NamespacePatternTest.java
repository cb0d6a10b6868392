package io.ttlstreams.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class NamespacePatternTest {

    @Test
    void shouldParseOneCollection() {
        assertThat(NamespacePattern.parse("app.sessions")).isEqualTo(new NamespacePattern("app", "sessions"));
    }

    @Test
    void shouldParseEveryCollectionOfADatabase() {
        assertThat(NamespacePattern.parse("app.*")).isEqualTo(new NamespacePattern("app", null));
    }

    @Test
    void shouldSplitAtTheFirstDotBecauseCollectionNamesMayContainDots() {
        assertThat(NamespacePattern.parse("app.audit.2026")).isEqualTo(new NamespacePattern("app", "audit.2026"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"app.sessions", "app.*", "app.audit.2026"})
    void shouldPrintAsWritten(String text) {
        assertThat(NamespacePattern.parse(text)).hasToString(text);
    }

    /** Wildcards where a pattern allows none: in the database, or within a collection name. */
    static Stream<String> misplacedWildcards() {
        return Stream.of("*.sessions", "*.*", "app.ses*");
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource({"io.ttlstreams.contract.NamespaceTest#invalidNamespaces", "misplacedWildcards"})
    void shouldRejectInvalidPatternsNamingThem(String text) {
        assertThatThrownBy(() -> NamespacePattern.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'");
    }

    @ParameterizedTest(name = "{0} matches {1}: {2}")
    @CsvSource({
        "app.sessions, app.sessions, true",
        "app.sessions, app.users, false",
        "app.sessions, other.sessions, false",
        "app.sessions, app.sessions.old, false",
        "app.*, app.sessions, true",
        "app.*, app.a.b, true",
        "app.*, application.sessions, false",
        "app.*, app, false",
        "app.sessions, app, false",
    })
    void shouldMatchNamespaces(String pattern, String namespace, boolean expected) {
        assertThat(NamespacePattern.parse(pattern).matches(Namespace.valueOf(namespace)))
                .isEqualTo(expected);
    }

    @Test
    void shouldNotMatchANullNamespace() {
        assertThat(NamespacePattern.parse("app.*").matches(null)).isFalse();
    }
}
