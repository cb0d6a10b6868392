package io.ttlstreams.app;

import io.ttlstreams.secrets.Redaction;
import picocli.CommandLine.Model.CommandSpec;

/**
 * How a subcommand reports what stopped it: one line on stderr, {@code ttl-streams <command>: <message>}, redacted,
 * since a message may quote a connection string or a token from the configuration.
 */
final class CommandFailure {

    private CommandFailure() {}

    /** Prints {@code message}, redacted, as one line on {@code command}'s stderr, and returns {@code exitCode}. */
    static int report(CommandSpec command, String message, int exitCode) {
        command.commandLine().getErr().println("ttl-streams " + command.name() + ": " + Redaction.redact(message));
        return exitCode;
    }
}
