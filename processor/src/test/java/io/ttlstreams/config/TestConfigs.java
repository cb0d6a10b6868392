package io.ttlstreams.config;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.provider.FileConfigProvider;

/**
 * The one builder of test configurations: a minimal valid one (rule "sessions", field expireAt on app.sessions) with
 * the given keys changed, so that each test states only the keys it is about; as a map, a {@link TtlStreamsConfig}
 * or the lines of a properties file.
 */
public final class TestConfigs {

    /** The minimal configuration's namespace. */
    public static final String NAMESPACE = "app.sessions";

    private TestConfigs() {}

    /**
     * The minimal configuration with {@code keyValues} (key, value, key, value, ...) applied; a {@code null} value
     * removes the key.
     */
    public static Map<String, Object> props(String... keyValues) {
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("ttl.rules", "sessions");
        props.put("ttl.rule.sessions.namespace", NAMESPACE);
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

    /** {@link #props} as strings, for what takes {@code Map<String, String>}. */
    public static Map<String, String> settings(String... keyValues) {
        Map<String, String> settings = new LinkedHashMap<>();
        props(keyValues).forEach((key, value) -> settings.put(key, (String) value));
        return settings;
    }

    /** {@link #props} with {@code extra} put over it. */
    public static TtlStreamsConfig config(Map<String, String> extra) {
        Map<String, Object> props = props();
        props.putAll(extra);
        return new TtlStreamsConfig(props);
    }

    public static TtlStreamsConfig config(String... keyValues) {
        return new TtlStreamsConfig(props(keyValues));
    }

    /** A configuration of exactly {@code keyValues} (key, value, ...), for tests about a whole rule set. */
    public static TtlStreamsConfig exactly(String... keyValues) {
        Map<String, String> props = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put(keyValues[i], keyValues[i + 1]);
        }
        return new TtlStreamsConfig(props);
    }

    /** {@link #props} as the lines of a properties file. */
    public static String lines(String... keyValues) {
        StringBuilder lines = new StringBuilder();
        props(keyValues)
                .forEach((key, value) ->
                        lines.append(key).append('=').append(value).append('\n'));
        return lines.toString();
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

    /** The environment variable that sets {@code key}: the inverse of {@link ConfigLayers#keyOf}. */
    public static String variableOf(String key) {
        StringBuilder variable = new StringBuilder(ConfigLayers.ENVIRONMENT_PREFIX);
        for (char c : key.toCharArray()) {
            variable.append(
                    switch (c) {
                        case '.' -> "_";
                        case '_' -> "__";
                        case '-' -> "___";
                        default -> String.valueOf(Character.toUpperCase(c));
                    });
        }
        return variable.toString();
    }
}
