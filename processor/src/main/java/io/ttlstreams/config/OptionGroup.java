package io.ttlstreams.config;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/**
 * Defines options in one documentation group, numbering them in order, which ConfigDef wants for its generated
 * documentation but nobody should count by hand.
 */
public final class OptionGroup {

    private final ConfigDef definition;
    private final String name;
    private int order;

    public OptionGroup(ConfigDef definition, String name) {
        this.definition = definition;
        this.name = name;
    }

    /** Defines the next option of the group. */
    public OptionGroup define(
            String key,
            Type type,
            Object defaultValue,
            ConfigDef.Validator validator,
            Importance importance,
            String documentation) {
        definition.define(
                key, type, defaultValue, validator, importance, documentation, name, ++order, Width.MEDIUM, key);
        return this;
    }
}
