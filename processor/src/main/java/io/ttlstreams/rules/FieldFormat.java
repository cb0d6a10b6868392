package io.ttlstreams.rules;

/**
 * How a field-mode rule reads the TTL field. BSON dates always count as dates; the epoch formats additionally read
 * numbers (int32, int64, double) as instants, as DynamoDB does with its epoch-seconds TTL attribute.
 */
public enum FieldFormat {

    /** Only BSON dates expire, as with a MongoDB TTL index. */
    DATE("date"),

    /** Numbers are seconds since the Unix epoch. */
    EPOCH_SECONDS("epoch-seconds"),

    /** Numbers are milliseconds since the Unix epoch. */
    EPOCH_MILLIS("epoch-millis");

    private final String configValue;

    FieldFormat(String configValue) {
        this.configValue = configValue;
    }

    /** The spelling used in configuration files. */
    public String configValue() {
        return configValue;
    }

    /**
     * The format spelled {@code text} in a configuration file.
     *
     * @throws IllegalArgumentException when {@code text} names no format
     */
    public static FieldFormat fromConfigValue(String text) {
        return ConfigValues.fromConfigValue(FieldFormat.class, FieldFormat::configValue, "field format", text);
    }
}
