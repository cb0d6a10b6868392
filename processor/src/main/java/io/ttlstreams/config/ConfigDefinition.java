package io.ttlstreams.config;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * The {@link ConfigDef} a configuration is checked against: the option groups by concern, in the order the reference
 * documents them, plus the rule options of each rule the configuration names.
 */
final class ConfigDefinition {

    /** The options other than the per-rule ones. */
    static final ConfigDef BASE = baseDefinition();

    /**
     * {@value RulesOptions#RULES_CONFIG} alone, which the definition depends on. Read before config providers resolve
     * {@code ${...}} references, so no other option is validated then.
     */
    private static final ConfigDef RULE_NAMES =
            new ConfigDef().define(BASE.configKeys().get(RulesOptions.RULES_CONFIG));

    private ConfigDefinition() {}

    /**
     * The base options plus, for each name in {@value RulesOptions#RULES_CONFIG}, the rule options under {@code
     * ttl.rule.<name>.}: the definition depends on the values, as Kafka Connect's does for transforms.
     *
     * @throws org.apache.kafka.common.config.ConfigException on a bad rule list or an unknown ttl-streams key
     */
    static ConfigDef of(Map<?, ?> props) {
        @SuppressWarnings("unchecked") // LIST options parse to List<String>
        List<String> ruleNames = (List<String>) RULE_NAMES.parse(props).get(RulesOptions.RULES_CONFIG);
        ConfigDef definition = new ConfigDef(BASE);
        ruleNames.forEach(name -> RuleConfig.embedInto(definition, name));
        UnknownKeys.reject(props, definition, ruleNames);
        for (String name : ruleNames) {
            String prefix = RuleConfig.prefix(name);
            if (props.keySet().stream().noneMatch(key -> String.valueOf(key).startsWith(prefix))) {
                throw new ConfigException(
                        RulesOptions.RULES_CONFIG,
                        String.join(",", ruleNames),
                        "rule " + name + " is listed in " + RulesOptions.RULES_CONFIG
                                + " but not defined: set at least " + prefix + RuleConfig.NAMESPACE_CONFIG
                                + ", or remove it from the list");
            }
        }
        return definition;
    }

    private static ConfigDef baseDefinition() {
        ConfigDef definition = new ConfigDef();
        RulesOptions.embedInto(definition);
        SourceOptions.embedInto(definition);
        OutputTopicOptions.embedInto(definition);
        SchedulerOptions.embedInto(definition);
        ConnectOptions.embedInto(definition);
        // The modules' fragments (module embedded's embedded.* options) where that group has always been documented.
        ServiceLoader.load(ConfigFragment.class).stream()
                .sorted(Comparator.comparing(provider -> provider.type().getName()))
                .forEach(provider -> provider.get().embedInto(definition));
        OperationsOptions.embedFailureHandlingInto(definition);
        OperationsOptions.embedSecurityInto(definition);
        ResyncOptions.embedInto(definition);
        OperationsOptions.embedHttpInto(definition);
        OperationsOptions.embedStartupInto(definition);
        return definition;
    }
}
