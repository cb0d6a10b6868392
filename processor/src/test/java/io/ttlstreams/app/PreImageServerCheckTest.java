package io.ttlstreams.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.config.TestConfigs;
import io.ttlstreams.config.TtlStreamsConfig;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

/** {@link PreImageServerCheck}: a pre-image rule refused against MongoDB before 6.0, before any connector exists. */
class PreImageServerCheckTest {

    private static final String URI = "mongodb://mongo:27017";

    private static TtlStreamsConfig preImages(String... extra) {
        String[] settings = {
            "ttl.mongodb.uri",
            URI,
            "ttl.expired.topic",
            "ttl.expired",
            "ttl.rule.sessions.expired.document",
            "pre-image"
        };
        String[] all = new String[settings.length + extra.length];
        System.arraycopy(settings, 0, all, 0, settings.length);
        System.arraycopy(extra, 0, all, settings.length, extra.length);
        return TestConfigs.config(all);
    }

    @Test
    void shouldRefuseAPreImageRuleNamingTheRuleTheOptionAndTheVersionWhenTheServerIsBefore6() {
        for (String version : new String[] {"4.4.29", "5.0.0", "5.0.31"}) {
            assertThatThrownBy(() -> PreImageServerCheck.check(preImages(), config -> Optional.of(version)))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("ttl.rule.sessions.expired.document")
                    .hasMessageContaining("pre-image")
                    .hasMessageContaining("is " + version + ",")
                    .hasMessageContaining("6.0")
                    .hasMessageNotContaining("\n");
        }
    }

    @Test
    void shouldAcceptAPreImageRuleWhenTheServerIs6OrLater() {
        for (String version : new String[] {"6.0.0", "7.0.14", "8.0.4", "10.0.0"}) {
            assertThatCode(() -> PreImageServerCheck.check(preImages(), config -> Optional.of(version)))
                    .doesNotThrowAnyException();
        }
    }

    @Test
    void shouldNotAskTheServerWhenNoRuleWantsPreImagesOrNoUriIsSet() {
        AtomicInteger asked = new AtomicInteger();
        PreImageServerCheck.check(TestConfigs.config("ttl.mongodb.uri", URI), config -> {
            asked.incrementAndGet();
            return Optional.of("5.0.0");
        });
        PreImageServerCheck.check(
                TestConfigs.config(
                        "ttl.expired.topic", "ttl.expired", "ttl.rule.sessions.expired.document", "pre-image"),
                config -> {
                    asked.incrementAndGet();
                    return Optional.of("5.0.0");
                });
        assertThat(asked).hasValue(0);
    }

    @Test
    void shouldGoOnWhenTheServerCannotBeAskedAtStartUp() {
        assertThatCode(() -> PreImageServerCheck.check(preImages(), config -> Optional.empty()))
                .doesNotThrowAnyException();
        assertThat(PreImageServerCheck.major("not-a-version")).isEqualTo(Integer.MAX_VALUE);
    }
}
