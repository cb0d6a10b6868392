package io.ttlstreams.config;

import static io.ttlstreams.config.TestConfigs.config;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

/** {@code ttl.expired.topic} and {@code ttl.rule.<name>.expired.document}: off by default, refused where impossible. */
class ExpiryEventsConfigTest {

    private static final String URI = "mongodb://mongo:27017";

    @Test
    void shouldPublishNoExpiredRecordsWhenNothingIsConfigured() {
        ExpiryEvents events = config().expiryEvents();
        assertThat(events.topic()).isEmpty();
        assertThat(events.document("sessions")).isEqualTo(ExpiredDocument.NONE);
    }

    @Test
    void shouldCarryThePreImageWhenTheRuleAsksForIt() {
        ExpiryEvents events = config(
                        "ttl.expired.topic", "ttl.expired", "ttl.rule.sessions.expired.document", "pre-image")
                .expiryEvents();
        assertThat(events.topic()).isEqualTo(Optional.of("ttl.expired"));
        assertThat(events.document("sessions")).isEqualTo(ExpiredDocument.PRE_IMAGE);
    }

    @Test
    void shouldRefuseAPreImageWhenExpiredRecordsAreOff() {
        assertThatThrownBy(() -> config("ttl.rule.sessions.expired.document", "pre-image"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ttl.rule.sessions.expired.document")
                .hasMessageContaining("ttl.expired.topic");
    }

    @Test
    void shouldRefuseAPreImageNamingTheServiceWhenItsChangeStreamsHaveNone() {
        for (SourceProfile profile : SourceProfile.values()) {
            if (profile.servesPreImages()) {
                continue;
            }
            assertThatThrownBy(() -> config(
                            "ttl.source.profile",
                            profile.configValue(),
                            "ttl.mongodb.uri",
                            URI,
                            "ttl.expired.topic",
                            "ttl.expired",
                            "ttl.rule.sessions.expired.document",
                            "pre-image"))
                    .as(profile.configValue())
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("ttl.rule.sessions.expired.document")
                    .hasMessageContaining(profile.service() + " documents no pre-images");
        }
    }

    @Test
    void shouldRefuseAnUnknownDocumentChoiceNamingTheOption() {
        assertThatThrownBy(() ->
                        config("ttl.expired.topic", "ttl.expired", "ttl.rule.sessions.expired.document", "post-image"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ttl.rule.sessions.expired.document");
    }

    @Test
    void shouldRefuseAMarkWithoutItsFieldAndMarkOptionsOnADeleteRule() {
        assertThatThrownBy(() -> config("ttl.rule.sessions.action", "mark"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ttl.rule.sessions.mark.field");
        assertThatThrownBy(() -> config("ttl.rule.sessions.mark.field", "expiredAt"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ttl.rule.sessions.mark.field")
                .hasMessageContaining(
                        "Applies only when ttl.rule.sessions.action is mark, and this rule's action is delete");
        assertThatThrownBy(() -> config("ttl.rule.sessions.delete.after.seconds", "60"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ttl.rule.sessions.delete.after.seconds");
        assertThatThrownBy(() -> config("ttl.rule.sessions.action", "mark", "ttl.rule.sessions.mark.field", "$set"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ttl.rule.sessions.mark.field");
    }

    @Test
    void shouldRefuseNoticesWhenExpiredRecordsAreOffAndTakeThemPerRuleOtherwise() {
        assertThatThrownBy(() -> config("ttl.rule.sessions.notice.before.seconds", "60"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ttl.rule.sessions.notice.before.seconds")
                .hasMessageContaining("ttl.expired.topic");
        assertThatThrownBy(() ->
                        config("ttl.expired.topic", "ttl.expired", "ttl.rule.sessions.notice.before.seconds", "0"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("ttl.rule.sessions.notice.before.seconds");
        assertThat(config("ttl.expired.topic", "ttl.expired", "ttl.rule.sessions.notice.before.seconds", "60")
                        .expiryEvents()
                        .noticeBeforeSeconds("sessions"))
                .hasValue(60);
        assertThat(config().expiryEvents().noticeBeforeSeconds("sessions")).isEmpty();
    }
}
