package io.ttlstreams.app;

import io.ttlstreams.config.TtlStreamsConfig;
import java.nio.file.Path;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code --config FILE} and {@code --set key=value}, mixed into every subcommand that reads a processor configuration
 * without starting a stack ({@code explain}, {@code resync}, {@code connect-config}, {@code approve}, {@code
 * platform}): the file, or without it the {@link BundledConfig bundled configuration}, under the environment and the
 * command line ({@link ConfigOverrides}).
 */
final class ConfigSource {

    @Option(
            names = "--config",
            paramLabel = "FILE",
            description =
                    "The processor's properties file (default: the bundled configuration, which reaches the embedded stack at its"
                            + " default ports; see docs/embedded.md).")
    private Path file;

    @Mixin
    private ConfigOverrides overrides;

    /** The configuration, with the environment's and {@code --set}'s options over it; warns once of what it should. */
    TtlStreamsConfig load() {
        return ConfigOverrides.warned(overrides.load(file));
    }

    /** Where the configuration comes from, for messages: the file, or the bundled configuration. */
    String describe() {
        return file != null ? file.toString() : "the bundled configuration (" + BundledConfig.PATH + ")";
    }
}
