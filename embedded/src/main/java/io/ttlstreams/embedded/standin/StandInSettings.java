package io.ttlstreams.embedded.standin;

import java.util.Objects;

/**
 * How the stand-in plays MongoDB, beside its data: the release it claims and whose features it has.
 *
 * @param version the MongoDB release played ({@link ServerVersion})
 */
public record StandInSettings(ServerVersion version) {

    /** MongoDB 7.0. */
    public static final StandInSettings DEFAULTS = new StandInSettings(ServerVersion.DEFAULT);

    public StandInSettings {
        Objects.requireNonNull(version, "version");
    }
}
