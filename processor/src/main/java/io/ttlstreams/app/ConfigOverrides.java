package io.ttlstreams.app;

import io.ttlstreams.config.ConfigLayers;
import io.ttlstreams.config.TtlStreamsConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Option;

/**
 * {@code --set key=value}, mixed into every subcommand that reads a configuration (through {@link ConfigSource}, or
 * beside a {@code --config} of its own as in {@code run}), and the order in which options apply: the file, then {@code TTL_STREAMS_*} environment variables, then {@code --set} ({@link ConfigLayers}). Public
 * so that the commands of other modules ({@code demo}) read their configuration the same way.
 */
public final class ConfigOverrides {

    private static final Logger LOG = LoggerFactory.getLogger(ConfigOverrides.class);

    @Option(
            names = "--set",
            paramLabel = "KEY=VALUE",
            description = "Set one option, over the file and the " + ConfigLayers.ENVIRONMENT_PREFIX + "* environment"
                    + " variables; repeatable, the last one wins.")
    private List<String> assignments = new ArrayList<>();

    /**
     * The file's options, or without a file the {@link BundledConfig bundled configuration}'s, under the environment's
     * and the command line's, without the warnings: a command that sets up its logging from the configuration ({@code
     * run}) does that first, then calls {@link #warned}.
     */
    public TtlStreamsConfig load(Path file) {
        return file == null
                ? ConfigLayers.over(BundledConfig.load(), System.getenv(), assignments)
                : ConfigLayers.load(file, System.getenv(), assignments);
    }

    /** Logs, once per command, what the configuration should be warned about ({@link TtlStreamsConfig#warnings()}). */
    public static TtlStreamsConfig warned(TtlStreamsConfig config) {
        config.warnings().forEach(LOG::warn);
        return config;
    }
}
