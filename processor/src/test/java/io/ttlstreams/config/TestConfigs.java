package io.ttlstreams.config;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;

/**
 * Builds configurations for tests: a minimal valid one (rule "sessions", field expireAt on app.sessions) with the
 * given keys changed, so that each test states only the keys it is about.
 */
final class TestConfigs {

    private TestConfigs() {}

    /**
     * The minimal configuration with {@code keyValues} (key, value, key, value, ...) applied; a {@code null} value
     * removes the key.
     */
    static Map<String, Object> props(String... keyValues) {
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("ttl.rules", "sessions");
        props.put("ttl.rule.sessions.namespace", "app.sessions");
        props.put("ttl.rule.sessions.field", "expireAt");
        for (int i = 0; i < keyValues.length; i += 2) {
            if (keyValues[i + 1] == null) {
                props.remove(keyValues[i]);
            } else {
                props.put(keyValues[i], keyValues[i + 1]);
            }
        }
        return props;
    }

    static TtlStreamsConfig config(String... keyValues) {
        return new TtlStreamsConfig(props(keyValues));
    }

    /** Asserts that the configuration fails to build, with a message naming {@code option}. */
    static void assertRejectedNaming(String option, String... keyValues) {
        assertThatThrownBy(() -> config(keyValues))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(option);
    }
}
