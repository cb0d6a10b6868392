package io.ttlstreams.config;

import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * Rejects keys in ttl-streams' own namespaces that no option defines. Kafka ignores unknown keys, which turns a typo
 * such as {@code ttl.rule.sessions.feild} into a rule that silently does something else; here it stops start-up.
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
            return "rule " + ruleName + " has no option '" + option + "'" + suggestion(option, options)
                    + " Its options are " + String.join(", ", options) + ".";
        }
        if (name.startsWith(EMBEDDED_PREFIX)
                && definition.names().stream().noneMatch(option -> option.startsWith(EMBEDDED_PREFIX))) {
            return "the embedded stack's options need module embedded on the classpath (the ttl-streams launcher's"
                    + " run --embedded), and this build has none";
        }
        return "ttl-streams has no such option" + suggestion(name, definition.names());
    }

    /** "; did you mean x?" for the closest candidate, or a plain full stop when none is close. */
    private static String suggestion(String name, Collection<String> candidates) {
        return candidates.stream()
                .filter(candidate -> distance(name, candidate) <= MAX_SUGGESTION_DISTANCE)
                .min(Comparator.comparingInt(candidate -> distance(name, candidate)))
                .map(closest -> "; did you mean " + closest + "?")
                .orElse(".");
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
