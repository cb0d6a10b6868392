package io.ttlstreams.config;

import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.ConfigKey;

/** Renders ConfigDefs as Markdown tables, so that the reference in docs/configuration.md cannot drift from the code. */
public final class ConfigReference {

    private static final String HEADER =
            "| Name | Type | Default | Valid values | Importance | Description |\n" + "|---|---|---|---|---|---|\n";

    private ConfigReference() {}

    /** The reference of every option: the ttl-streams options, then one rule's, as docs/configuration.md shows it. */
    public static String everyOption() {
        return "## ttl-streams options\n\n" + markdown(ConfigDefinition.BASE, "")
                + "## Rule options\n\nOne set per name in " + RulesOptions.RULES_CONFIG + ".\n\n"
                + markdown(RuleConfig.configDef(), RuleConfig.PREFIX + "<name>.");
    }

    /**
     * One section per group of {@code definition}, in definition order.
     *
     * @param namePrefix put before each option name, e.g. {@code ttl.rule.<name>.}
     */
    static String markdown(ConfigDef definition, String namePrefix) {
        StringBuilder out = new StringBuilder();
        // Options outside any group (the rule options) form one untitled section.
        List<String> groups = definition.groups().isEmpty() ? Collections.singletonList(null) : definition.groups();
        for (String group : groups) {
            if (group != null) {
                out.append("### ").append(group).append("\n\n");
            }
            out.append(HEADER);
            definition.configKeys().values().stream()
                    .filter(key -> Objects.equals(key.group, group))
                    .sorted(Comparator.comparingInt(key -> key.orderInGroup))
                    .forEach(key -> out.append(row(key, namePrefix)));
            out.append('\n');
        }
        return out.toString();
    }

    private static String row(ConfigKey key, String namePrefix) {
        return "| `" + namePrefix + key.name + "` | " + key.type.toString().toLowerCase(Locale.ROOT) + " | "
                + defaultValue(key) + " | " + prose(key.validator == null ? "" : key.validator.toString()) + " | "
                + key.importance.toString().toLowerCase(Locale.ROOT) + " | " + prose(key.documentation) + " |\n";
    }

    private static String defaultValue(ConfigKey key) {
        if (!key.hasDefault()) {
            return "required";
        }
        if (key.defaultValue == null) {
            return "none";
        }
        String text = ConfigDef.convertToString(key.defaultValue, key.type);
        return text.isEmpty() ? "`\"\"`" : "`" + cell(text) + "`";
    }

    /** Text outside code spans, where {@code <name>} would be taken for an HTML tag and vanish. */
    private static String prose(String text) {
        return cell(text).replace("<", "&lt;");
    }

    /** Pipes would end the cell and newlines the row. */
    private static String cell(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }
}
