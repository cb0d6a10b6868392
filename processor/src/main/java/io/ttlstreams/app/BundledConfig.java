package io.ttlstreams.app;

import io.ttlstreams.config.TtlStreamsConfig;

/**
 * The bundled configuration, {@code processor/src/main/resources/io/ttlstreams/app/bundled.properties} in the
 * repository: what {@code run} and {@code demo} use without {@code --config}, and what {@code explain}, {@code resync},
 * {@code connect-config}, {@code approve} and {@code platform} default to ({@link ConfigSource}), so that every command
 * of a first session agrees on the rules and topics.
 */
public final class BundledConfig {

    /** The file in the repository, for messages and documentation. */
    public static final String PATH = "processor/src/main/resources/io/ttlstreams/app/bundled.properties";

    private static final String RESOURCE = "bundled.properties";

    private BundledConfig() {}

    /** The bundled configuration, without environment or command-line options. */
    public static TtlStreamsConfig load() {
        return new TtlStreamsConfig(BuildResources.properties(RESOURCE));
    }
}
