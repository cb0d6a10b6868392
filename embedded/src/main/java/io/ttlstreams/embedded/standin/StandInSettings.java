package io.ttlstreams.embedded.standin;

import java.time.Duration;
import java.util.Objects;

/**
 * How the stand-in plays MongoDB, beside its data.
 *
 * @param version       the MongoDB release played ({@link ServerVersion})
 * @param cursorTimeout how long a cursor may stay idle before it is killed ({@link IdleCursors}; MongoDB's
 *                      {@code cursorTimeoutMillis})
 * @param clockOffset   how far the stand-in's clock is off the machine's, which every time it stamps follows
 *                      ({@code clusterTime}, {@code wallTime}, {@code operationTime}, {@code $$NOW}, ...): a primary
 *                      whose clock runs ahead (positive) or behind (negative) its clients'
 * @param mongos        whether it answers as a sharded cluster's {@code mongos} instead of a replica set's primary
 *                      ({@link StandInIdentity}): what a test needs to show a client reading a sharded cluster as an
 *                      application does
 */
public record StandInSettings(ServerVersion version, Duration cursorTimeout, Duration clockOffset, boolean mongos) {

    /** MongoDB's default {@code cursorTimeoutMillis}: 10 minutes. */
    public static final Duration DEFAULT_CURSOR_TIMEOUT = Duration.ofMinutes(10);

    /** MongoDB 7.0, cursors time out after 10 idle minutes, the machine's clock. */
    public static final StandInSettings DEFAULTS =
            new StandInSettings(ServerVersion.DEFAULT, DEFAULT_CURSOR_TIMEOUT, Duration.ZERO);

    /** Settings of a replica set's primary: what the stand-in plays unless told to play a {@code mongos}. */
    public StandInSettings(ServerVersion version, Duration cursorTimeout, Duration clockOffset) {
        this(version, cursorTimeout, clockOffset, false);
    }

    public StandInSettings {
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(clockOffset, "clockOffset");
        if (cursorTimeout == null || cursorTimeout.isNegative() || cursorTimeout.isZero()) {
            throw new IllegalArgumentException("the cursor timeout must be positive, got " + cursorTimeout);
        }
    }

    /** These settings with another release. */
    public StandInSettings withVersion(ServerVersion release) {
        return new StandInSettings(release, cursorTimeout, clockOffset, mongos);
    }

    /** These settings answering as a sharded cluster's {@code mongos}. */
    public StandInSettings asMongos() {
        return new StandInSettings(version, cursorTimeout, clockOffset, true);
    }
}
