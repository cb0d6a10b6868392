package io.ttlstreams.rules;

/** How a rule computes a document's deadline. */
public enum TtlMode {

    /** A date (or epoch number) in the document plus {@code expireAfterSeconds}, like a MongoDB TTL index. */
    FIELD,

    /** The time of the document's latest change plus {@code expireAfterSeconds}, like Cosmos DB's TTL. */
    LAST_MODIFIED;

    /** The spelling used in configuration files. */
    public String configValue() {
        return ConfigValues.spelling(this);
    }

    /**
     * The mode spelled {@code text} in a configuration file.
     *
     * @throws IllegalArgumentException when {@code text} names no mode
     */
    public static TtlMode fromConfigValue(String text) {
        return ConfigValues.parse(TtlMode.class, "TTL mode", text);
    }
}
