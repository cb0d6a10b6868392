package io.ttlstreams.rules;

import java.util.Objects;

/**
 * Soft expiry: a rule that, at the deadline, marks its document instead of deleting it, by setting {@code field} to
 * the deadline; with a grace period, the marked document is deleted that long after its mark unless it was un-marked
 * meanwhile.
 *
 * @param field the dotted path of the field the mark sets
 * @param deleteAfterSeconds seconds after the mark at which the marked document is deleted; null to keep it marked
 */
public record MarkAction(String field, Long deleteAfterSeconds) {

    /** Checks the field path and the grace period. */
    public MarkAction {
        BsonPaths.validate(Objects.requireNonNull(field, "field"));
        if (deleteAfterSeconds != null && (deleteAfterSeconds < 0 || deleteAfterSeconds > Integer.MAX_VALUE)) {
            throw new IllegalArgumentException(
                    "A grace period is from 0 to " + Integer.MAX_VALUE + " seconds, not " + deleteAfterSeconds);
        }
    }
}
