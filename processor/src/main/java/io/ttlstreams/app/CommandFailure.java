package io.ttlstreams.app;

import io.ttlstreams.secrets.Redaction;
import org.apache.kafka.common.config.ConfigException;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;

/**
 * How a subcommand reports what stopped it: {@code ttl-streams <command>: <message>} on stderr, a line per line of
 * the message (a declared topic's problems are one per line), redacted, since a message may quote a connection
 * string or a token from the configuration. The command line's execution exception handler reports so an invalid
 * configuration, document or argument ({@link ConfigException}, {@link IllegalArgumentException}) that escapes one of
 * the processor's subcommands, with {@link TtlStreamsCli#EXIT_BAD_INPUT}.
 */
final class CommandFailure {

    private CommandFailure() {}

    /** Prints {@code message}, redacted, on {@code command}'s stderr, and returns {@code exitCode}. */
    static int report(CommandSpec command, String message, int exitCode) {
        for (String line : String.valueOf(Redaction.redact(message)).split("\\R")) {
            command.commandLine().getErr().println("ttl-streams " + command.name() + ": " + line);
        }
        return exitCode;
    }

    /**
     * The {@link CommandLine.IExecutionExceptionHandler} of {@link TtlStreamsCli}: what it reports, as {@link #report};
     * anything else, and anything a {@link CommandExtension} throws, goes on to picocli's default (a stack trace).
     */
    static int handle(Exception e, CommandLine command, ParseResult parsed) throws Exception {
        if ((e instanceof ConfigException || e instanceof IllegalArgumentException)
                && !(command.getCommand() instanceof CommandExtension)) {
            return report(command.getCommandSpec(), e.getMessage(), TtlStreamsCli.EXIT_BAD_INPUT);
        }
        throw e;
    }
}
