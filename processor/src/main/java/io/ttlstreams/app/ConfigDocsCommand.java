package io.ttlstreams.app;

import io.ttlstreams.config.ConfigReference;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** Prints the configuration reference, generated from the ConfigDef; docs/configuration.md embeds its output. */
@Command(
        name = "config-docs",
        mixinStandardHelpOptions = true,
        description = "Print the configuration reference (Markdown), generated from the option definitions.")
final class ConfigDocsCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        System.out.print(ConfigReference.everyOption());
        return 0;
    }
}
