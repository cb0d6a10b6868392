package io.ttlstreams.app;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * Entry point of the {@code ttl-streams} command. Each subcommand is a class of its own.
 */
@Command(
        name = "ttl-streams",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "Event-driven TTL engine for MongoDB data, built on Kafka Streams.",
        footer = {"", "Benchmarks: ttl-streams bench [--quick], run by the launcher script (module bench/)."},
        subcommands = {
            RunCommand.class,
            DemoCommand.class,
            ExplainCommand.class,
            ConnectConfigCommand.class,
            ConfigDocsCommand.class,
            CommandLine.HelpCommand.class
        })
public final class TtlStreamsCli {

    /** Exit code for bad input: an invalid configuration, document or argument. */
    public static final int EXIT_BAD_INPUT = 2;

    /** Runs the command line and exits with its code. */
    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The command line, for tests that run commands in process. */
    public static CommandLine commandLine() {
        // "@path" means a document file for explain, not a picocli argument file.
        return new CommandLine(new TtlStreamsCli()).setExpandAtFiles(false);
    }
}
