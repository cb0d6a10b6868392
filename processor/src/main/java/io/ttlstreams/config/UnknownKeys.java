package io.ttlstreams.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.StreamsConfig;

/**
 * Rejects keys in ttl-streams' own namespaces that no option defines. Kafka ignores unknown keys, which turns a typo
 * such as {@code ttl.rule.sessions.feild} into a rule that silently does something else; here it stops start-up.
 * Kafka's own settings are only warned about ({@link #unknownKafkaSettings}): a plug-in (a config provider, a
 * custom partitioner or SASL callback) may read keys no {@code ConfigDef} of Kafka's knows.
 */
final class UnknownKeys {

    /** The prefix of the options module embedded defines, as a {@link ConfigFragment}. */
    private static final String EMBEDDED_PREFIX = "embedded.";

    /** Key prefixes owned by ttl-streams; all other keys are Kafka Streams settings. */
    static final List<String> OWN_PREFIXES = List.of("ttl.", EMBEDDED_PREFIX);

    /** A suggestion further away than this many edits is more likely noise than the intended name. */
    private static final int MAX_SUGGESTION_DISTANCE = 3;

    private UnknownKeys() {}

    static boolean isOwn(String key) {
        return OWN_PREFIXES.stream().anyMatch(key::startsWith);
    }

    /**
     * @throws ConfigException naming the first own key of {@code props} that {@code definition} does not define
     */
    static void reject(Map<?, ?> props, ConfigDef definition, List<String> ruleNames) {
        for (Object key : props.keySet()) {
            // A non-string key is AbstractConfig's to report.
            if (key instanceof String name && isOwn(name) && !definition.names().contains(name)) {
                throw new ConfigException(
                        "Unknown configuration " + name + ": " + explain(name, definition, ruleNames));
            }
        }
    }

    private static String explain(String name, ConfigDef definition, List<String> ruleNames) {
        if (name.startsWith(RuleConfig.PREFIX)) {
            String rest = name.substring(RuleConfig.PREFIX.length());
            int dot = rest.indexOf('.');
            if (dot < 0) {
                return "rule options take the form " + RuleConfig.PREFIX + "<name>.<option>";
            }
            String ruleName = rest.substring(0, dot);
            if (!ruleNames.contains(ruleName)) {
                return "rule '" + ruleName + "' is not listed in " + RulesOptions.RULES_CONFIG + " " + ruleNames;
            }
            String option = rest.substring(dot + 1);
            Collection<String> options = RuleConfig.configDef().names();
            return "rule " + ruleName + " has no option '" + option + "'" + suggestion(option, options, "", ".")
                    + " Its options are " + String.join(", ", options) + ".";
        }
        if (name.startsWith(EMBEDDED_PREFIX)
                && definition.names().stream().noneMatch(option -> option.startsWith(EMBEDDED_PREFIX))) {
            return "the embedded stack's options need module embedded on the classpath (the ttl-streams launcher's"
                    + " run --embedded), and this build has none";
        }
        return "ttl-streams has no such option" + suggestion(name, definition.names(), "", ".");
    }

    /**
     * The settings Kafka Streams and its clients know, by the prefix under which Kafka Streams passes a setting on
     * ({@code consumer.max.poll.records}); the empty prefix holds every unprefixed name.
     */
    private static final Map<String, Set<String>> KAFKA_SETTINGS = kafkaSettings();

    /** Prefixes under which any key is passed on (topic configurations, config providers, rack tags). */
    private static final List<String> OPEN_PREFIXES =
            List.of(StreamsConfig.TOPIC_PREFIX, "config.providers.", StreamsConfig.CLIENT_TAG_PREFIX);

    private static Map<String, Set<String>> kafkaSettings() {
        Set<String> consumer = ConsumerConfig.configNames();
        Set<String> producer = ProducerConfig.configNames();
        Set<String> admin = AdminClientConfig.configNames();
        Set<String> all = new TreeSet<>(StreamsConfig.configDef().names());
        all.addAll(consumer);
        all.addAll(producer);
        all.addAll(admin);
        Map<String, Set<String>> settings = new LinkedHashMap<>();
        // Longest prefixes first, so that main.consumer.x is not read as consumer.x's prefix "main.".
        settings.put(StreamsConfig.MAIN_CONSUMER_PREFIX, consumer);
        settings.put(StreamsConfig.RESTORE_CONSUMER_PREFIX, consumer);
        settings.put(StreamsConfig.GLOBAL_CONSUMER_PREFIX, consumer);
        settings.put(StreamsConfig.CONSUMER_PREFIX, consumer);
        settings.put(StreamsConfig.PRODUCER_PREFIX, producer);
        settings.put(StreamsConfig.ADMIN_CLIENT_PREFIX, admin);
        settings.put("", all);
        return settings;
    }

    /**
     * One warning for each key outside ttl-streams' namespaces that neither Kafka Streams nor its consumer, producer
     * or admin client defines, naming the closest setting they do: {@code num.stream.thread} would otherwise be
     * ignored without a word.
     */
    static List<String> unknownKafkaSettings(Map<?, ?> props) {
        List<String> warnings = new ArrayList<>();
        for (Object key : props.keySet()) {
            if (key instanceof String name
                    && !isOwn(name)
                    && OPEN_PREFIXES.stream().noneMatch(name::startsWith)) {
                unknownKafkaSetting(name).ifPresent(warnings::add);
            }
        }
        return warnings;
    }

    private static Optional<String> unknownKafkaSetting(String name) {
        for (Map.Entry<String, Set<String>> prefixed : KAFKA_SETTINGS.entrySet()) {
            String prefix = prefixed.getKey();
            if (!name.startsWith(prefix)) {
                continue;
            }
            String rest = name.substring(prefix.length());
            if (prefixed.getValue().contains(rest) || KAFKA_SETTINGS.get("").contains(name)) {
                return Optional.empty();
            }
            return Optional.of("Unknown Kafka setting " + name + ": neither Kafka Streams nor its consumer, producer or"
                    + " admin client defines it" + (prefix.isEmpty() ? "" : " under " + prefix) + ", so it has no"
                    + " effect unless a plug-in reads it" + suggestion(rest, prefixed.getValue(), prefix, ""));
        }
        return Optional.empty();
    }

    /** "; did you mean x?" for the closest candidate, {@code prefix} before it, or {@code none} when none is close. */
    private static String suggestion(String name, Collection<String> candidates, String prefix, String none) {
        return candidates.stream()
                .filter(candidate -> distance(name, candidate) <= MAX_SUGGESTION_DISTANCE)
                .min(Comparator.comparingInt(candidate -> distance(name, candidate)))
                .map(closest -> "; did you mean " + prefix + closest + "?")
                .orElse(none);
    }

    /** Levenshtein distance: the edits turning {@code a} into {@code b}. */
    private static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
