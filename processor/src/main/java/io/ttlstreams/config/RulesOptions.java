package io.ttlstreams.config;

import java.util.List;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;

/**
 * The option that names the TTL rules, each of which {@link RuleConfig} then defines under {@code ttl.rule.<name>.}.
 */
public final class RulesOptions {

    private static final String GROUP = "Rules";

    public static final String RULES_CONFIG = "ttl.rules";
    public static final String RULES_DOC = "Names of the TTL rules, each configured under ttl.rule.<name>. (see the"
            + " rule options). Names use letters, digits, '-' and '_'.";

    /** Letters, digits, '-' and '_': a rule name becomes one dot-free segment of its option keys. */
    private static final Pattern RULE_NAME = Pattern.compile("[A-Za-z0-9_-]+");

    private RulesOptions() {}

    static void embedInto(ConfigDef definition) {
        new OptionGroup(definition, GROUP)
                .define(
                        RULES_CONFIG,
                        Type.LIST,
                        ConfigDef.NO_DEFAULT_VALUE,
                        Validators.of(
                                "distinct names of letters, digits, - and _, at least one",
                                RulesOptions::checkRuleNames),
                        Importance.HIGH,
                        RULES_DOC);
    }

    private static void checkRuleNames(Object value) {
        List<String> names = Validators.distinct((List<?>) value);
        if (names.isEmpty()) {
            throw new IllegalArgumentException("List at least one rule");
        }
        for (String name : names) {
            if (!RULE_NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("Rule name '" + name + "' may use only letters, digits, - and _");
            }
        }
    }
}
