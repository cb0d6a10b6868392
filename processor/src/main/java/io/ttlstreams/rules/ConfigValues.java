package io.ttlstreams.rules;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * How the enums of the configuration are spelled in configuration files: the constant's name in lowercase, with
 * hyphens for underscores ({@code LAST_MODIFIED} is {@code last-modified}), one rule for every such enum.
 */
public final class ConfigValues {

    private ConfigValues() {}

    /** How {@code constant} is written in a configuration file. */
    public static String spelling(Enum<?> constant) {
        return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** Every spelling of {@code type}, in declaration order. */
    public static <E extends Enum<E>> List<String> spellings(Class<E> type) {
        return Arrays.stream(type.getEnumConstants())
                .map(ConfigValues::spelling)
                .toList();
    }

    /**
     * The constant of {@code type} spelled {@code text}.
     *
     * @param what the kind of value, for the message
     * @throws IllegalArgumentException naming the expected spellings when {@code text} is none of them
     */
    public static <E extends Enum<E>> E parse(Class<E> type, String what, String text) {
        for (E constant : type.getEnumConstants()) {
            if (spelling(constant).equals(text)) {
                return constant;
            }
        }
        throw new IllegalArgumentException(
                "Unknown " + what + " '" + text + "'; expected one of " + String.join(", ", spellings(type)));
    }
}
