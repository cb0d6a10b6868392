package io.ttlstreams.rules;

import java.util.Arrays;
import java.util.function.Function;
import java.util.stream.Collectors;

/** Lookup of an enum constant by the lowercase spelling users write in configuration files. */
final class ConfigValues {

    private ConfigValues() {}

    static <E extends Enum<E>> E fromConfigValue(
            Class<E> type, Function<E, String> configValue, String what, String text) {
        for (E constant : type.getEnumConstants()) {
            if (configValue.apply(constant).equals(text)) {
                return constant;
            }
        }
        String expected =
                Arrays.stream(type.getEnumConstants()).map(configValue).collect(Collectors.joining(", "));
        throw new IllegalArgumentException("Unknown " + what + " '" + text + "'; expected one of " + expected);
    }
}
