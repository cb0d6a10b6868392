package io.ttlstreams.config;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.provider.FileConfigProvider;

/**
 * Builds configurations for tests: a minimal valid one (rule "sessions", field expireAt on app.sessions) with the
 * given keys changed, so that each test states only the keys it is about.
 */
public final class TestConfigs {

    private TestConfigs() {}

    /**
     * The minimal configuration with {@code keyValues} (key, value, key, value, ...) applied; a {@code null} value
     * removes the key.
     */
    public static Map<String, Object> props(String... keyValues) {
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

    public static TtlStreamsConfig config(String... keyValues) {
        return new TtlStreamsConfig(props(keyValues));
    }

    /**
     * The minimal configuration with Kafka's {@code FileConfigProvider} registered as {@code file} (so that values may
     * be {@code ${file:path:key}}) and {@code keyValues} applied.
     */
    static TtlStreamsConfig configReadingFiles(String... keyValues) {
        Map<String, Object> props = props(keyValues);
        props.put("config.providers", "file");
        props.put("config.providers.file.class", FileConfigProvider.class.getName());
        return new TtlStreamsConfig(props);
    }

    /** Asserts that the configuration fails to build, with a message naming {@code option}. */
    static void assertRejectedNaming(String option, String... keyValues) {
        assertThatThrownBy(() -> config(keyValues))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(option);
    }
}
