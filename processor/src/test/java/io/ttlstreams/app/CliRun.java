package io.ttlstreams.app;

import io.ttlstreams.connect.RepositoryFiles;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.stream.Stream;
import picocli.CommandLine;

/** One subcommand of {@link TtlStreamsCli} run in process for a test, and what it printed on stdout and stderr. */
final class CliRun {

    /** The repository's example processor configuration, which the connector configurations are rendered from. */
    static final String EXAMPLE = RepositoryFiles.root()
            .resolve("connect-config/example-processor.properties")
            .toString();

    private final String subcommand;
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    CliRun(String subcommand) {
        this.subcommand = subcommand;
    }

    /** Runs the subcommand with {@code args}; its exit code. */
    int run(String... args) {
        CommandLine commandLine = TtlStreamsCli.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        return commandLine.execute(
                Stream.concat(Stream.of(subcommand), Stream.of(args)).toArray(String[]::new));
    }

    /** Everything printed on stdout so far. */
    String out() {
        return out.toString();
    }

    /** Everything printed on stderr so far. */
    String err() {
        return err.toString();
    }
}
