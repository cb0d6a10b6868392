package io.ttlstreams.rules;

/**
 * How a field-mode rule reads the TTL field. BSON dates always count as dates; the epoch formats additionally read
 * numbers (int32, int64, double) as instants, as DynamoDB does with its epoch-seconds TTL attribute.
 */
public enum FieldFormat {

    /** Only BSON dates expire, as with a MongoDB TTL index. */
    DATE,

    /** Numbers are seconds since the Unix epoch. */
    EPOCH_SECONDS,

    /** Numbers are milliseconds since the Unix epoch. */
    EPOCH_MILLIS;

    /** The spelling used in configuration files. */
    public String configValue() {
        return ConfigValues.spelling(this);
    }

    /**
     * The format spelled {@code text} in a configuration file.
     *
     * @throws IllegalArgumentException when {@code text} names no format
     */
    public static FieldFormat fromConfigValue(String text) {
        return ConfigValues.parse(FieldFormat.class, "field format", text);
    }
}
