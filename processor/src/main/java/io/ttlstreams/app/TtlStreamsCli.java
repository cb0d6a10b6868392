package io.ttlstreams.app;

import java.util.ServiceLoader;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Entry point of the {@code ttl-streams} command. Each subcommand is a class of its own; modules other than the
 * processor add theirs as {@link CommandExtension}s.
 */
@Command(
        name = "ttl-streams",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "Event-driven TTL engine for MongoDB data, built on Kafka Streams.",
        subcommands = {
            RunCommand.class,
            ResyncCommand.class,
            ExplainCommand.class,
            ConnectConfigCommand.class,
            ApproveCommand.class,
            PlatformCommand.class,
            ConfigDocsCommand.class
        })
public final class TtlStreamsCli {

    /** Exit code for bad input: an invalid configuration, document or argument. */
    public static final int EXIT_BAD_INPUT = 2;

    /** Runs the command line and exits with its code. */
    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The command line with every subcommand found on the classpath, for tests that run commands in process. */
    public static CommandLine commandLine() {
        CommandLine commandLine = new CommandLine(new TtlStreamsCli());
        ServiceLoader.load(CommandExtension.class).forEach(commandLine::addSubcommand);
        commandLine.addSubcommand(new CommandLine.HelpCommand());
        // "@path" means a document file for explain, not a picocli argument file; help wraps at word boundaries
        // to the terminal's width (usageHelpAutoWidth), inherited by the subcommands added above.
        return commandLine
                .setExpandAtFiles(false)
                .setUsageHelpAutoWidth(true)
                .setExecutionExceptionHandler(CommandFailure::handle);
    }
}
