package io.ttlstreams.config;

import io.ttlstreams.rules.ConfigValues;

/**
 * How a delete command is confirmed ({@value SchedulerOptions#CONFIRM_MODE_CONFIG}): by the change stream's delete
 * event, by reading the document back from MongoDB, or by the event with a read when it is late.
 */
public enum ConfirmMode {
    /** Only the delete event confirms; a late one gets the command again, until the attempts are spent. */
    CHANGE_STREAM,
    /**
     * The document is read back {@value SchedulerOptions#CONFIRM_READ_DELAY_MS_CONFIG} after each command, for a
     * source whose change stream reports no deletes (Cosmos DB); a delete event, where one comes, confirms as well.
     */
    READ_BACK,
    /** The delete event confirms; one that is late ({@value SchedulerOptions#CONFIRM_TIMEOUT_MS_CONFIG}) is read. */
    AUTO;

    /** The value as written in the configuration. */
    public String configValue() {
        return ConfigValues.spelling(this);
    }

    /** Whether documents are read back at all. */
    public boolean reads() {
        return this != CHANGE_STREAM;
    }

    /**
     * The mode that applies: the {@code configured} one, or unset, {@link #READ_BACK} where the source profile's
     * change stream reports no deletes, else {@link #AUTO} with a MongoDB to read and {@link
     * #CHANGE_STREAM} without.
     */
    static ConfirmMode effective(String configured, SourceProfile profile, boolean mongodbConfigured) {
        if (configured != null) {
            return ConfigValues.parse(ConfirmMode.class, "confirm mode", configured);
        }
        if (!profile.reportsDeletes()) {
            return READ_BACK;
        }
        return mongodbConfigured ? AUTO : CHANGE_STREAM;
    }
}
