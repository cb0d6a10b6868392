package io.ttlstreams.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class NamespaceTest {

    @Test
    void shouldSplitAtTheFirstDotBecauseCollectionNamesMayContainDots() {
        assertThat(Namespace.parse("app.audit.2026")).isEqualTo(Namespace.of("app", "audit.2026"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"app.sessions", "app.audit.2026", "app"})
    void shouldReadBackWhatItPrints(String text) {
        assertThat(Namespace.valueOf(text)).hasToString(text);
    }

    @Test
    void shouldTellADatabaseFromACollection() {
        assertThat(Namespace.valueOf("app").isDatabase()).isTrue();
        assertThat(Namespace.parse("app.sessions").databaseNamespace()).isEqualTo(Namespace.database("app"));
    }

    /** Names MongoDB refuses as a collection's namespace (and so does every namespace pattern). */
    static Stream<String> invalidNamespaces() {
        return Stream.of(
                "app",
                "",
                ".sessions",
                "app.",
                "a b.c",
                "a$b.c",
                "app.$cmd",
                "a/b.c",
                "a\u0000b.c",
                "app.ses\u0000sions");
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("invalidNamespaces")
    void shouldRejectWhatMongoDbRejectsNamingIt(String text) {
        assertThatThrownBy(() -> Namespace.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'")
                .hasMessageNotContaining("\u0000");
    }
}
