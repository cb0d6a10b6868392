package io.ttlstreams.embedded.app;

import io.ttlstreams.app.TtlStreamsCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/**
 * One run of the {@code ttl-streams} command line in this JVM, as an operator would type it next to the pipeline:
 * its exit code and what it printed.
 */
record CommandRun(int exitCode, String out, String err) {

    /** Runs {@code args} (a subcommand and its arguments) to the end. */
    static CommandRun of(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine commandLine = TtlStreamsCli.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        int exitCode = commandLine.execute(args);
        return new CommandRun(exitCode, out.toString(), err.toString());
    }
}
