package io.ttlstreams.app;

import io.ttlstreams.config.ConfigLayers;
import io.ttlstreams.config.TtlStreamsConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * {@code --set key=value}, mixed into every subcommand that reads a configuration, and the order in which options
 * apply: the file, then {@code TTL_STREAMS_*} environment variables, then {@code --set} ({@link ConfigLayers}). Public
 * so that the commands of other modules ({@code demo}) read their configuration the same way.
 */
public final class ConfigOverrides {

    @Option(
            names = "--set",
            paramLabel = "KEY=VALUE",
            description = "Set one option, over the file and the " + ConfigLayers.ENVIRONMENT_PREFIX + "* environment"
                    + " variables; repeatable, the last one wins.")
    private List<String> assignments = new ArrayList<>();

    /** The file's options under the environment's and the command line's. */
    public TtlStreamsConfig load(Path file) {
        return TtlStreamsConfig.load(file, System.getenv(), assignments);
    }

    /** A bundled configuration's options under the environment's and the command line's. */
    public TtlStreamsConfig over(TtlStreamsConfig bundled) {
        return bundled.layered(System.getenv(), assignments);
    }
}
